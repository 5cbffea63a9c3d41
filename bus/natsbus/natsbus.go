// Package natsbus carries the console's bus on NATS JetStream, so that
// other machines can follow a team: every record the console commits to
// its store is published, in order and exactly once (message ids inside the
// stream's duplicate window), on a stream of the team's; a Bus reads it back
// with the same Subscribe as the embedded bus.
//
// The store stays the source of truth on the console's machine: the Mirror
// publishes what the store holds past the last record the stream has, so a
// NATS server that was down, restarted or slow loses nothing, and a console
// killed in the middle publishes the rest when it starts again.
package natsbus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Config says how to reach a NATS server.
type Config struct {
	// URL is the server's address (nats://host:4222, tls://host:4222; a
	// comma-separated list for a cluster).
	URL string
	// Creds is a credentials file (a user JWT and its NKey seed).
	Creds string
	// TLS names the files of a TLS connection.
	TLS TLS
	// Name is how the connection shows in the server's monitoring.
	Name string
	// Inbox is the connection's inbox prefix, under which the replies to
	// its requests come: NodeInbox for a node, whose user may subscribe
	// there only ("": NATS's default, _INBOX).
	Inbox string
	// OnError is told what the server reports on the connection (a
	// permission it refused); nil: nothing.
	OnError func(error)
	// Wait connects in the background when the server cannot be reached
	// now, instead of failing (a console starts without its NATS).
	Wait bool
}

// TLS are the files of a TLS connection: CA to trust the server, Cert and
// Key to prove the client.
type TLS struct{ CA, Cert, Key string }

// Connect opens a connection that reconnects for ever: a NATS server that
// restarts is waited for, not given up on.
func Connect(c Config) (*nats.Conn, error) {
	if strings.TrimSpace(c.URL) == "" {
		return nil, errors.New("no NATS URL: set bus.nats in the team file, --nats or TEAMLEAD_NATS")
	}
	opts := []nats.Option{nats.Name(c.Name), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		nats.RetryOnFailedConnect(c.Wait)}
	if c.Creds != "" {
		opts = append(opts, nats.UserCredentials(c.Creds))
	}
	if c.OnError != nil {
		opts = append(opts, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { c.OnError(err) }))
	}
	if c.Inbox != "" {
		opts = append(opts, nats.CustomInboxPrefix(c.Inbox))
	}
	if c.TLS.CA != "" {
		opts = append(opts, nats.RootCAs(c.TLS.CA))
	}
	if c.TLS.Cert != "" || c.TLS.Key != "" {
		if c.TLS.Cert == "" || c.TLS.Key == "" {
			return nil, errors.New("bus.tls: cert and key go together; give both, or neither")
		}
		opts = append(opts, nats.ClientCert(c.TLS.Cert, c.TLS.Key))
	}
	nc, err := nats.Connect(c.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot reach NATS at %s: %w (is the server running, and the address right?)", Redact(c.URL), err)
	}
	return nc, nil
}

// Names are the stream and subjects of one team.
type Names struct {
	Stream string // TEAMLEAD_<team>
	Prefix string // teamlead.<team>.rec: every record's subject starts so
}

// NamesOf returns the stream and subject prefix of a team: its name written
// as one NATS token.
func NamesOf(team string) Names {
	t := token(team)
	return Names{Stream: "TEAMLEAD_" + strings.ReplaceAll(t, "-", "_"), Prefix: "teamlead." + t + ".rec"}
}

// Subject is the NATS subject of a record's bus subject (route.dev →
// teamlead.<team>.rec.route.dev). Each token of the bus subject is kept
// when NATS takes it as it is and written in hex otherwise, so file paths
// and ids with any character travel, and patterns match token by token as
// they do on the embedded bus.
func (n Names) Subject(subject string) string {
	toks := strings.Split(subject, ".")
	for i, t := range toks {
		toks[i] = token(t)
	}
	return n.Prefix + "." + strings.Join(toks, ".")
}

// Filter is the NATS filter of a bus pattern (route.* → …rec.route.*).
func (n Names) Filter(pattern string) string {
	if pattern == "" || pattern == ">" {
		return n.Prefix + ".>"
	}
	toks := strings.Split(pattern, ".")
	for i, t := range toks {
		switch t {
		case ">": // the rest, wherever it stands, as bus.Match takes it
			return n.Prefix + "." + strings.Join(append(toks[:i], ">"), ".")
		case "*":
		default:
			toks[i] = token(t)
		}
	}
	return n.Prefix + "." + strings.Join(toks, ".")
}

// token writes s as one NATS subject token: letters, digits and - as they
// are; anything else (also an empty token, or one starting with _) as _
// and the hex of its bytes.
func token(s string) string {
	plain := s != "" && s[0] != '_'
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
	}
	if plain {
		return s
	}
	return "_" + hex.EncodeToString([]byte(s))
}

// Headers of every published record.
const (
	hdrEpoch = "Teamlead-Epoch" // the store the record came from
	hdrSeq   = "Teamlead-Seq"   // its sequence in that store
)

// NewEpoch names a store for the stream: records of a store made anew
// (its sequences start again at 1) are told apart from the old ones.
func NewEpoch() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// duplicateWindow is how long the server remembers message ids: a record
// published again within it (a retry after a lost acknowledgement, a
// console restarted at once) is stored once.
const duplicateWindow = 2 * time.Minute

// ensureStream creates the team's stream, or checks the one there.
func ensureStream(ctx context.Context, js jetstream.JetStream, n Names) (jetstream.Stream, error) {
	s, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        n.Stream,
		Description: "teamlead: the audit records of one team, in the order its console committed them",
		Subjects:    []string{n.Prefix + ".>"},
		Storage:     jetstream.FileStorage,
		Duplicates:  duplicateWindow,
		Retention:   jetstream.LimitsPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("JetStream stream %s: %w (does the server run with JetStream enabled, and may this user create streams?)", n.Stream, err)
	}
	return s, nil
}

// msgID is the record's id for the server's duplicate check.
func msgID(epoch string, seq uint64) string { return fmt.Sprintf("%s-%d", epoch, seq) }

// Redact hides the secrets of a NATS URL (nats://TOKEN@host or user:pass@)
// for messages and logs.
func Redact(u string) string {
	parts := strings.Split(u, ",")
	for i, p := range parts {
		if at := strings.LastIndexByte(p, '@'); at >= 0 {
			if s := strings.Index(p, "://"); s >= 0 && s < at {
				parts[i] = p[:s+3] + "***" + p[at:]
			}
		}
	}
	return strings.Join(parts, ",")
}
