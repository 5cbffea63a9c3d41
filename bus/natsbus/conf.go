package natsbus

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// A team on a NATS server of yours gives each node a user of its own,
// limited as on the console's own server: WriteConf writes the users as a
// nats-server configuration block, WriteJSON as the permissions of a user
// JWT (what nsc edits), WriteNSC as the nsc commands that make them.

// WriteConf writes users as the authorization block of a nats-server
// configuration file, each password a variable the server resolves from
// its environment (or from a line NAME: "…" above the block in the same
// file).
func WriteConf(w io.Writer, team string, users []User) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# The NATS users of team %s (teamlead nats-permissions): the console may do what the team\n", team)
	b.WriteString("# needs, each node only what running its own agents takes. Set each password variable in the\n")
	b.WriteString("# server's environment, or define it above this block in the same file (NODE_GPU1_PASSWORD: \"…\"):\n")
	b.WriteString("# an included file sees only its own variables and the environment.\n")
	b.WriteString("authorization {\n  users = [\n")
	for _, u := range users {
		if u.Node == "" {
			b.WriteString("    # the console\n")
		} else {
			fmt.Fprintf(&b, "    # node %s, running %s\n", u.Node, strings.Join(u.Agents, ", "))
		}
		fmt.Fprintf(&b, "    {user: %s, password: $%s, permissions: {\n", confString(u.Name), u.PasswordVar)
		confList(&b, "publish", u.Permissions.Publish)
		confList(&b, "subscribe", u.Permissions.Subscribe)
		if u.Permissions.Responses > 0 {
			fmt.Fprintf(&b, "      allow_responses: {max: %d}\n", u.Permissions.Responses)
		}
		b.WriteString("    }}\n")
	}
	b.WriteString("  ]\n}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func confList(b *strings.Builder, key string, subjects []string) {
	fmt.Fprintf(b, "      %s: {allow: [\n", key)
	for _, s := range subjects {
		fmt.Fprintf(b, "        %s\n", confString(s))
	}
	b.WriteString("      ]}\n")
}

// confString quotes s for the configuration: in quotes, $ starts no
// variable.
func confString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// jwtPermissions are a user JWT's permissions (the nats claim's pub, sub
// and resp, as nsc writes them).
type jwtPermissions struct {
	Pub  jwtList  `json:"pub"`
	Sub  jwtList  `json:"sub"`
	Resp *jwtResp `json:"resp,omitempty"`
}

type jwtList struct {
	Allow []string `json:"allow"`
}

type jwtResp struct {
	Max int           `json:"max"`
	TTL time.Duration `json:"ttl"`
}

// userJSON is one line of WriteJSON.
type userJSON struct {
	User        string         `json:"user"`
	PasswordVar string         `json:"password_var"`
	Node        string         `json:"node,omitempty"`
	Agents      []string       `json:"agents,omitempty"`
	Permissions jwtPermissions `json:"permissions"`
}

// WriteJSON writes users as JSON lines, one user a line: its name, node
// and agents, and its permissions as a user JWT holds them (pub.allow,
// sub.allow, resp).
func WriteJSON(w io.Writer, users []User) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // > as it is
	for _, u := range users {
		p := jwtPermissions{Pub: jwtList{Allow: u.Permissions.Publish}, Sub: jwtList{Allow: u.Permissions.Subscribe}}
		if u.Permissions.Responses > 0 {
			p.Resp = &jwtResp{Max: u.Permissions.Responses}
		}
		if err := enc.Encode(userJSON{User: u.Name, PasswordVar: u.PasswordVar, Node: u.Node, Agents: u.Agents, Permissions: p}); err != nil {
			return err
		}
	}
	return nil
}

// WriteNSC writes the nsc commands that add users to the account
// (account, when given) with their permissions; nsc generate creds then
// writes each one's credentials file.
func WriteNSC(w io.Writer, account string, users []User) error {
	var b strings.Builder
	for _, u := range users {
		fmt.Fprintf(&b, "nsc add user --name %s", shellQuote(u.Name))
		if account != "" {
			fmt.Fprintf(&b, " --account %s", shellQuote(account))
		}
		fmt.Fprintf(&b, " \\\n  --allow-pub %s \\\n  --allow-sub %s",
			shellQuote(strings.Join(u.Permissions.Publish, ",")), shellQuote(strings.Join(u.Permissions.Subscribe, ",")))
		if u.Permissions.Responses > 0 {
			fmt.Fprintf(&b, " \\\n  --allow-pub-response=%d", u.Permissions.Responses)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
