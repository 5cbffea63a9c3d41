package permit

import (
	"strings"
	"testing"
	"time"
)

const compoundPolicy = `
rules:
  - match: [Bash(go test:*), Bash(go vet:*), Bash(ls:*), Bash(cat:*), Bash(cd:*), Bash(echo:*), Bash(grep:*)]
    decide: allow
    paths: workdir
    why: ordinary work
  - match: Bash(git push:*)
    decide: ask
    why: publishing
  - match: Bash(curl:*)
    decide: deny
    why: no network
`

func TestCompoundCommands(t *testing.T) {
	p := mustParse(t, compoundPolicy)
	for _, tc := range []struct {
		cmd   string
		want  Decide
		parts int
		rule  string
	}{
		{`go test ./...`, Allow, 0, "Bash(go test:*)"},
		{`go vet ./... && go test ./...`, Allow, 2, "Bash(go vet:*)"},
		{`go test ./... && rm -rf ~`, Ask, 2, FloorDeleteRecursiveOutside},
		{`go test ./...; git push`, Ask, 2, "Bash(git push:*)"},
		{`go test ./... | grep FAIL`, Allow, 2, "Bash(go test:*)"},
		{`go test ./... || curl https://x.example/fail`, Deny, 2, "Bash(curl:*)"},
		{`git push && curl https://x.example`, Deny, 2, "Bash(curl:*)"},
		{`echo $(whoami)`, Ask, 2, "default"},
		{"echo `go vet ./...`", Allow, 2, "Bash(echo:*)"}, // echo prints its computed argument: it names no file (red team 14b)
		{`cd sub && go test ./...`, Allow, 2, "Bash(cd:*)"},
		{`cd /etc && cat passwd`, Ask, 2, "default"},
		{`(cd sub; ls) && echo done`, Allow, 3, "Bash(cd:*)"},
		{`bash -c 'go test ./...'`, Ask, 2, "default"},
		{`ls > files.txt`, Allow, 0, "Bash(ls:*)"},
		{`ls > /tmp/files.txt`, Ask, 0, FloorWriteOutside},
		{`FOO=1`, Ask, 0, "default"},
		{`go test ./... &`, Allow, 0, "Bash(go test:*)"},
	} {
		d := p.Check("Bash("+tc.cmd+")", "dev", testEnv)
		if d.Decide != tc.want || len(d.Parts) != tc.parts || d.Rule.Text != tc.rule {
			t.Errorf("%q: %s by %s with %d parts, want %s by %s with %d: %s", tc.cmd, d.Decide, d.Rule.Text, len(d.Parts), tc.want, tc.rule, tc.parts, d.Why)
		}
		if d.Action != "Bash("+tc.cmd+")" {
			t.Errorf("action %q", d.Action)
		}
	}
}

func TestCompoundParts(t *testing.T) {
	p := mustParse(t, compoundPolicy)
	d := p.Check("Bash(go test ./... && git push --force; echo ok)", "dev", testEnv)
	if d.Decide != Ask || d.Risk != Critical || len(d.Parts) != 3 {
		t.Fatalf("%+v", d)
	}
	want := []struct {
		action string
		decide Decide
		ref    string
	}{
		{"Bash(go test ./...)", Allow, "Bash(go test:*) at test.yaml:3"},
		{"Bash(git push --force)", Ask, "floor git-force-push"},
		{"Bash(echo ok)", Allow, "Bash(echo:*) at test.yaml:3"},
	}
	for i, w := range want {
		got := d.Parts[i]
		if got.Action != w.action || got.Decide != w.decide || got.Rule.String() != w.ref {
			t.Errorf("part %d: %s %s %s", i, got.Action, got.Decide, got.Rule)
		}
	}
	if !strings.Contains(d.Why, `part "git push --force"`) || !contains(d.Floor, FloorGitForcePush) {
		t.Errorf("why %q floor %v", d.Why, d.Floor)
	}
}

// TestPathScoping: rules with paths: workdir hold only inside the agent's
// working directory, whichever agent it is.
func TestPathScoping(t *testing.T) {
	p := mustParse(t, compoundPolicy)
	for _, tc := range []struct {
		workdir, cmd string
		want         Decide
	}{
		{"/work/proj", "cat go.mod", Allow},
		{"/work/proj", "cat ./internal/x.go", Allow},
		{"/work/proj", "cat /work/proj/go.mod", Allow},
		{"/work/proj", "cat /work/other/go.mod", Ask},
		{"/work/other", "cat /work/other/go.mod", Allow},
		{"/work/proj", "cat ../other/go.mod", Ask},
		{"/work/proj", "cat ~/.gitconfig", Ask},
		{"/work/proj", "cat $HOME/x", Ask},
		{"/work/proj", "cat $X", Ask},
		{"/work/proj", "ls -la --color=auto", Allow},
		{"/work/proj", "ls --directory=/etc", Ask},
		{"/work/proj", "go test -coverprofile=/tmp/c.out ./...", Ask},
		{"/work/proj", "go test -coverprofile=c.out ./...", Allow},
		{"/work/proj", "cat < /etc/hosts", Ask},
		{"/work/proj", "cat < go.mod 2>/dev/null", Allow},
		{"/work/proj", "cd .. && ls", Ask},
		{"/work/proj", "cd ./sub && ls ../..", Ask},
		{"/home/u", "cat .bashrc", Allow},
		{"", "cat go.mod", Ask},
	} {
		env := Env{Workdir: tc.workdir, Home: "/home/u"}
		if d := p.Check("Bash("+tc.cmd+")", "dev", env); d.Decide != tc.want {
			t.Errorf("%s in %s: %s by %s: %s", tc.cmd, tc.workdir, d.Decide, d.Rule, d.Why)
		}
	}
}

// TestCwd: a hook reports where the agent is now; relative paths start
// there, and the working directory still bounds what is inside.
func TestCwd(t *testing.T) {
	p := mustParse(t, compoundPolicy+"  - match: Read(**)\n    decide: allow\n    why: x\n")
	env := Env{Workdir: "/work/proj", Home: "/home/u", Cwd: "/work/proj/sub"}
	for _, tc := range []struct {
		action string
		want   Decide
	}{
		{"Bash(cat ../go.mod)", Allow},
		{"Bash(cat ../../other/go.mod)", Ask},
		{"Read(x.go)", Allow},
		{"Read(../../x.go)", Ask},
		{"Bash(rm -rf ..)", Ask},
	} {
		if d := p.Check(tc.action, "dev", env); d.Decide != tc.want {
			t.Errorf("%s: %s by %s", tc.action, d.Decide, d.Rule)
		}
	}
	if d := p.Check("Bash(rm -rf ..)", "dev", env); !contains(d.Floor, FloorDeleteRecursiveOutside) {
		t.Errorf("rm -rf .. from sub removes the workdir: %v", d.Floor)
	}
}

func TestRefStrings(t *testing.T) {
	for _, tc := range []struct {
		ref  Ref
		want string
	}{
		{Ref{Kind: ByRule, Text: "Bash(ls:*)", File: "p.yaml", Line: 3}, "Bash(ls:*) at p.yaml:3"},
		{Ref{Kind: ByRule, Text: "Edit", File: "p.yaml", Line: 9, Agent: "qa"}, "Edit at p.yaml:9 (agent qa)"},
		{Ref{Kind: ByFloor, Text: FloorPrivilege}, "floor privilege"},
		{Ref{Kind: ByDefault, Text: "default", File: "p.yaml", Line: 1}, "default (p.yaml:1)"},
	} {
		if got := tc.ref.String(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}

func TestUnreadableActionIsAsked(t *testing.T) {
	p := mustParse(t, permissive)
	d := p.Check("Bash(ls", "dev", testEnv)
	if d.Decide != Ask || !strings.Contains(d.Why, "cannot read the action") {
		t.Errorf("%+v", d)
	}
}

// TestCheckStaysFast: inputs built to blow up the nesting stay cheap.
func TestCheckStaysFast(t *testing.T) {
	p := mustParse(t, permissive)
	for _, s := range []string{
		"find " + strings.Repeat("a ", 20) + strings.Repeat("-exec find "+strings.Repeat("a ", 20), 6),
		strings.Repeat("eval ", 200) + "ls",
		strings.Repeat("bash -c ", 50) + "ls",
		strings.Repeat("${", 2000),
		strings.Repeat("$((", 500) + strings.Repeat("))", 500),
		strings.Repeat("docker run rm ", 300),
		strings.Repeat("sudo ", 3000) + "ls",
		strings.Repeat("a;", 5000),
		strings.Repeat("\"$(", 30) + strings.Repeat(")\"", 30),
		strings.Repeat("<<EOF ", 300) + "\n",
	} {
		start := time.Now()
		d := p.CheckAction(Action{Tool: "Bash", Arg: s, HasArg: true}, "dev", testEnv)
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%.40q took %v", s, took)
		}
		if d.Decide == 0 {
			t.Errorf("%.40q: no decision", s)
		}
	}
}
