// Package permit decides what an agent may do without asking the human.
//
// An action is written the way Claude Code writes its permission rules:
// Tool or Tool(argument), e.g. Bash(go test ./...), Edit(src/main.go),
// WebFetch(https://pkg.go.dev/fmt), mcp__github__create_issue. A Policy
// (configs/permissions.yaml) holds ordered rules in the same syntax, each
// deciding allow, ask or deny; the rules of the agent first, then the
// defaults, then the policy's default (ask). Within a list a matching deny
// rule decides, then an ask rule, then an allow rule; a deny or ask gives
// way only to an allow rule that refines it (a narrower case written as
// its exception), so no allow rule can shadow an ask or deny rule by its
// place in the file. Shell
// commands are parsed with bash's grammar into their simple commands and
// each is checked: the whole is allowed only when every part is.
//
// Under the rules lies the destructive floor (Floor): built-in patterns —
// recursive deletes outside the working directory, sudo, disk tools, force
// pushes, credentials leaving the machine, pipes from the network into a
// shell... — that no rule can approve. A rule may deny them; otherwise they
// are asked.
//
// No command runs. With Env.FS set (teamlead sets it to the real file
// system), paths are looked up: symbolic links and .. are followed before
// any path rule, globs are expanded, and folders a command reads whole are
// searched for credential files. Without an FS the policy is pure and a
// link is taken for what its name says.
package permit
