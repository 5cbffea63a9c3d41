// Package permit decides what an agent may do without asking the human.
//
// An action is written the way Claude Code writes its permission rules:
// Tool or Tool(argument), e.g. Bash(go test ./...), Edit(src/main.go),
// WebFetch(https://pkg.go.dev/fmt), mcp__github__create_issue. A Policy
// (configs/permissions.yaml) holds ordered rules in the same syntax, each
// deciding allow, ask or deny; the first rule that matches decides, the
// rules of the agent first, then the defaults, then the policy's default
// (ask). Shell commands are split into their simple commands and each is
// checked: the whole is allowed only when every part is.
//
// Under the rules lies the destructive floor (Floor): built-in patterns —
// recursive deletes outside the working directory, sudo, disk tools, force
// pushes, credentials leaving the machine, pipes from the network into a
// shell... — that no rule can approve. A rule may deny them; otherwise they
// are asked.
//
// Everything here is pure: no file is read but the policy, no command runs,
// no path is looked up on disk (a symbolic link inside the working directory
// that points out of it is not seen).
package permit
