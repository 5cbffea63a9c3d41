package natsbus

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Server is a NATS server with JetStream run inside the console (teamlead
// run --nats-listen), for a small team with no NATS of its own.
type Server struct {
	srv   *server.Server
	token string
}

// Serve starts a NATS server listening on listen (HOST:PORT; port 0 picks
// one) with JetStream on a file store under dir, and waits until it takes
// connections. Clients must give token (in the URL: nats://TOKEN@host:port):
// the server listens on the network, where anybody, an agent on this
// machine included, could otherwise publish or delete the team's records.
func Serve(listen, dir, token string) (*Server, error) {
	return ServeTeam(listen, dir, token, "", nil)
}

// ServeTeam is Serve that also takes team's nodes, each with its own
// password and only the permissions its agents need (auth.go).
func ServeTeam(listen, dir, token, team string, nodes map[string]NodeAuth) (*Server, error) {
	if token == "" {
		return nil, errors.New("NATS server: no token")
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("--nats-listen %q: want HOST:PORT, e.g. 0.0.0.0:4222 (%v)", listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return nil, fmt.Errorf("--nats-listen %q: %q is not a port", listen, port)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("NATS store folder: %w", err)
	}
	if p == 0 {
		p = server.RANDOM_PORT // the server takes 0 as its default port, 4222
	}
	opts := &server.Options{
		ServerName: "teamlead",
		Host:       host,
		Port:       p,
		JetStream:  true,
		StoreDir:   filepath.Clean(dir),
		NoSigs:     true, // the console handles its signals
		NoLog:      true,
	}
	auth := authenticator{token: token, team: team, nodes: map[string]NodeAuth{}}
	for name, n := range nodes {
		if n.Password == "" {
			return nil, fmt.Errorf("NATS server: node %s has no password", name)
		}
		auth.nodes[NodeUser(name)] = n
	}
	opts.CustomClientAuthentication = auth
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("NATS server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("NATS server on %s did not start in 10s (is the port in use?)", listen)
	}
	return &Server{srv: srv, token: token}, nil
}

// URL is where clients on this machine connect, the token included.
func (s *Server) URL() string {
	return strings.Replace(s.srv.ClientURL(), "nats://", "nats://"+s.token+"@", 1)
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.srv.Addr() }

// Close stops the server; JetStream's files stay for the next start.
func (s *Server) Close() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
}
