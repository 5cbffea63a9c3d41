package natsbus

import (
	"crypto/subtle"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
)

// The console's own NATS server (Serve) takes two kinds of clients: the
// console and the human's tools, with the console's token, who may do
// anything; and nodes, each with a name and a password of its own, who
// may do only what running their own agents takes: report events about
// them (on subjects that name the node), say they run, read the
// deliveries of their agents and answer the console's requests about
// them. A node can neither publish the team's records nor deliver to an
// agent, nor speak for another node's agents (the console also refuses an
// event whose subject names another node than its payload). What a node
// may do is NodePermissions (permissions.go), which teamlead
// nats-permissions also prints for a server of yours.

// NodeAuth is what a node may connect with.
type NodeAuth struct {
	// Password is the node's own (in its URL: nats://node-NAME:PASSWORD@host).
	Password string
	// Agents are the agents it runs (their host: names it).
	Agents []string
}

// NodeUser is the NATS user name of node name.
func NodeUser(name string) string { return "node-" + name }

// authenticator checks the console's token or a node's user and password.
type authenticator struct {
	token string
	team  string
	nodes map[string]NodeAuth // by user name
}

func (a authenticator) Check(c server.ClientAuthentication) bool {
	o := c.GetOpts()
	if o.Token != "" && equal(o.Token, a.token) || o.Username == "" && equal(o.Password, a.token) {
		c.RegisterUser(&server.User{Username: "console"})
		return true
	}
	n, ok := a.nodes[o.Username]
	if !ok || !equal(o.Password, n.Password) {
		return false
	}
	c.RegisterUser(&server.User{Username: o.Username, Permissions: NodePermissions(a.team, strings.TrimPrefix(o.Username, "node-"), n.Agents).server()})
	return true
}

func equal(a, b string) bool {
	return a != "" && b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
