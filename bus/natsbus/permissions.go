package natsbus

import (
	"sort"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
)

// What each NATS user of a team may do is computed here, once: the
// console's own server (auth.go) gives it to the nodes that connect to
// it, and `teamlead nats-permissions` prints it for a server of yours
// (conf.go), so both hold the same lists.

// Permissions are the subjects a NATS user may publish and subscribe to,
// and how many replies it may send to each request it receives.
type Permissions struct {
	// Publish are the subjects (patterns) it may publish to.
	Publish []string
	// Subscribe are the subjects (patterns) it may subscribe to.
	Subscribe []string
	// Responses is how many replies it may send to a request it received
	// (0: none beyond Publish).
	Responses int
}

// NodeInbox is the inbox prefix of node's connection: the replies to its
// requests (JetStream's included) come under it, and a node may subscribe
// there only, not to the console's or another node's replies.
func NodeInbox(team, node string) string { return nodeInbox(token(team), token(node)) }

// InboxOfToken is NodeInbox of a node named as a subject token names it.
func InboxOfToken(team, nodeTok string) string { return nodeInbox(token(team), nodeTok) }

// nodeInbox is NodeInbox of a team and a node already written as tokens.
func nodeInbox(teamTok, nodeTok string) string { return "_INBOX.teamlead." + teamTok + "." + nodeTok }

// NodePermissions are what node needs to run agents, and nothing more:
// say it runs; report events about each of its agents and pass their
// requests to the console (on subjects that name the node and the agent);
// read each agent's deliveries through its own durable consumer, filtered
// to that agent; answer the console's requests about them. Not the team's
// records, no delivery, no stream, no other agent's subjects, no other
// connection's replies.
func NodePermissions(team, node string, agents []string) Permissions {
	l := linkNamesOf(team)
	pub := []string{
		l.presenceSubject(node),
		"$JS.API.STREAM.INFO." + l.deliverStream,
		"$JS.API.STREAM.INFO." + l.eventStream,
	}
	sub := []string{NodeInbox(team, node) + ".>"}
	for _, a := range agents {
		cons := consumerName("agent", a)
		pub = append(pub,
			l.eventSubject(node, a),
			l.doorSubject(node, a),
			// Only with the filter in the subject, which the server checks
			// against the consumer's: the agent's deliveries, no other's.
			"$JS.API.CONSUMER.CREATE."+l.deliverStream+"."+cons+"."+l.deliverSubject(a),
			"$JS.API.CONSUMER.INFO."+l.deliverStream+"."+cons,
			"$JS.API.CONSUMER.MSG.NEXT."+l.deliverStream+"."+cons,
			"$JS.ACK."+l.deliverStream+"."+cons+".>")
		sub = append(sub, l.controlSubject(a))
	}
	return Permissions{Publish: pub, Subscribe: sub, Responses: 1}
}

// ConsolePermissions are what the team's console needs: everything under
// the team's prefix (its records, the deliveries, its requests to the
// nodes, their presence and doors), its bucket of questions, and the
// JetStream API of the team's five streams — to make them, publish, read
// them back (teamlead audit and questions --nats, a rebuild of its store)
// and follow the events;
// and to answer each request of a node's agent once.
// Nothing of another team's, nor of the account's other streams.
func ConsolePermissions(team string) Permissions {
	l := linkNamesOf(team)
	bucket := l.QuestionsBucket()
	// $JS.API.INFO: making the bucket asks what the server supports.
	pub := []string{"teamlead." + l.team + ".>", "$KV." + bucket + ".>", "$JS.API.INFO"}
	for _, s := range []string{l.Stream, l.StateStream(), l.deliverStream, l.eventStream, "KV_" + bucket} {
		pub = append(pub,
			"$JS.API.STREAM.CREATE."+s,
			"$JS.API.STREAM.UPDATE."+s,
			"$JS.API.STREAM.INFO."+s,
			"$JS.API.STREAM.MSG.GET."+s,
			"$JS.API.DIRECT.GET."+s,
			"$JS.API.DIRECT.GET."+s+".>",
			"$JS.API.CONSUMER.CREATE."+s+".>",
			"$JS.API.CONSUMER.INFO."+s+".*",
			"$JS.API.CONSUMER.DELETE."+s+".*",
			"$JS.API.CONSUMER.MSG.NEXT."+s+".*",
			"$JS.ACK."+s+".>")
	}
	// Responses: its answers to the nodes' agents' requests (doors), one
	// each, under the node's inbox.
	return Permissions{Publish: pub, Subscribe: []string{"teamlead." + l.team + ".>", "_INBOX.>"}, Responses: 1}
}

// server is p as the NATS server takes it.
func (p Permissions) server() *server.Permissions {
	sp := &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: p.Publish},
		Subscribe: &server.SubjectPermission{Allow: p.Subscribe},
	}
	if p.Responses > 0 {
		sp.Response = &server.ResponsePermission{MaxMsgs: p.Responses}
	}
	return sp
}

// User is one NATS user of a team, as a server of yours lists it.
type User struct {
	// Name is the user name (node-NAME for a node, as on the console's
	// own server; console for the console).
	Name string
	// PasswordVar names the variable that holds its password in the
	// server's configuration: the server's environment, or a line
	// NAME: "…" above the block in the same file.
	PasswordVar string
	// Node is the node it is ("": the console).
	Node string
	// Agents are the node's agents.
	Agents []string
	// Permissions are what it may do.
	Permissions Permissions
}

// ConsoleUser is the user name WriteConf gives the console.
const ConsoleUser = "console"

// TeamUsers are the users of team: the console, then each node (by name)
// with its agents (nodes: node name → agents).
func TeamUsers(team string, nodes map[string][]string) []User {
	users := []User{{Name: ConsoleUser, PasswordVar: passwordVar(ConsoleUser), Permissions: ConsolePermissions(team)}}
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		agents := append([]string(nil), nodes[n]...)
		sort.Strings(agents)
		users = append(users, User{Name: NodeUser(n), PasswordVar: passwordVar(NodeUser(n)), Node: n, Agents: agents,
			Permissions: NodePermissions(team, n, agents)})
	}
	return users
}

// passwordVar is the variable of user's password: NODE_GPU1_PASSWORD.
func passwordVar(user string) string {
	b := []byte(strings.ToUpper(user))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b) + "_PASSWORD"
}
