package permit

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRuleGood(t *testing.T) {
	for _, tc := range []struct {
		rule string
		kind specKind
		tool string
	}{
		{"Bash", kindAny, "Bash"},
		{"Bash(*)", kindAny, "Bash"},
		{"Bash(npm run build)", kindBashExact, "Bash"},
		{"Bash(go test:*)", kindBashPrefix, "Bash"},
		{"Bash(go test *)", kindBashPrefix, "Bash"},
		{"Bash(git * main)", kindBashGlob, "Bash"},
		{"Bash(* --version)", kindBashGlob, "Bash"},
		{`Bash(ls \*.go)`, kindBashExact, "Bash"},
		{"Bash(echo $(date))", kindBashExact, "Bash"},
		{"  Bash( go test:* ) ", kindBashPrefix, "Bash"},
		{"Read(**)", kindPath, "Read"},
		{"Edit(src/**)", kindPath, "Edit"},
		{"Write(docs/*.md)", kindPath, "Write"},
		{"Read(~/.zshrc)", kindPath, "Read"},
		{"Read(//etc/hosts)", kindPath, "Read"},
		{"Edit(/src/**/*.ts)", kindPath, "Edit"},
		{"Edit(./src/**)", kindPath, "Edit"},
		{"Read(*.env)", kindPath, "Read"},
		{"Edit(docs/)", kindPath, "Edit"},
		{"WebFetch(domain:docs.*)", kindDomain, "WebFetch"},
		{"WebFetch(domain:go.dev)", kindDomain, "WebFetch"},
		{"WebFetch", kindAny, "WebFetch"},
		{"WebSearch", kindAny, "WebSearch"},
		{"mcp__github", kindAny, "mcp__github"},
		{"mcp__github__create_issue", kindAny, "mcp__github__create_issue"},
		{"mcp__github__*", kindGlob, "mcp__github__*"},
		{"Task(reviewer)", kindExact, "Task"},
		{"Skill(deploy-*)", kindGlob, "Skill"},
	} {
		r, err := ParseRule(tc.rule)
		if err != nil {
			t.Errorf("%s: %v", tc.rule, err)
			continue
		}
		if r.kind != tc.kind || r.Tool != tc.tool {
			t.Errorf("%s: kind %d tool %q, want %d %q", tc.rule, r.kind, r.Tool, tc.kind, tc.tool)
		}
	}
}

func TestParseRuleBad(t *testing.T) {
	for _, tc := range []struct{ rule, says string }{
		{"", "missing the tool name"},
		{"bash(go test:*)", `unknown tool "bash"`},
		{"Shell(ls)", `unknown tool "Shell"`},
		{"Bash(go test:*", "missing the closing )"},
		{"Bash(go test:*) extra", "missing the closing )"},
		{"(ls)", "missing the tool name"},
		{"Bash()", "empty ()"},
		{"Bash(   )", "empty ()"},
		{"Bash(go:* test)", ":* may only end the rule"},
		{"Bash(:*)", "nothing before :*"},
		{"Bash(go * test:*)", "takes no other *"},
		{"Read(../secrets/**)", `".." segments are not allowed`},
		{"Edit(src/./x)", `"." segments are not allowed`},
		{"Read(~bob/x)", "~user is not supported"},
		{"Edit(src/[a)", "bad path pattern"},
		{"WebFetch(docs.python.org)", "WebFetch rules name a host"},
		{"WebFetch(domain:)", "empty domain"},
		{"WebFetch(domain:https://x.com/a)", "no scheme, port or path"},
		{"WebSearch(cats)", "WebSearch takes no specifier"},
		{"mcp__", "missing the server name"},
		{"mcp__github(x)", "an MCP rule takes no"},
		{"Read(a b)(c", "missing the closing )"},
		{"Bash!(x)", "only letters, digits"},
	} {
		_, err := ParseRule(tc.rule)
		if err == nil {
			t.Errorf("%q: no error", tc.rule)
			continue
		}
		if !errors.Is(err, ErrRule) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: %v, want it to say %q", tc.rule, err, tc.says)
		}
	}
}

func TestRuleMatchesBash(t *testing.T) {
	for _, tc := range []struct {
		rule, cmd string
		want      bool
	}{
		{"Bash(go test:*)", "go test", true},
		{"Bash(go test:*)", "go test ./...", true},
		{"Bash(go test:*)", "go testx", false},
		{"Bash(go test:*)", "go  test   -run X", true},
		{"Bash(go test:*)", "timeout 60 go test ./...", true},
		{"Bash(go test:*)", "GOOS=linux CGO_ENABLED=0 go test ./...", true},
		{"Bash(go test:*)", "LD_PRELOAD=x.so go test ./...", false},
		{"Bash(go test:*)", "env go test", true},
		{"Bash(go test:*)", "env CGO_ENABLED=0 go test", true},
		{"Bash(go test:*)", "command go test", true},
		{"Bash(go test:*)", "env FOO=x go test", false},
		{"Bash(go test:*)", "env -i go test", false},
		{"Bash(go test:*)", "command -v go test", false},
		{"Bash(go test:*)", "/usr/local/go/bin/go test", false},
		{"Bash(go test *)", "go test", true},
		{"Bash(go test *)", "go test -v", true},
		{"Bash(ls *)", "lsof", false},
		{"Bash(npm run build)", "npm run build", true},
		{"Bash(npm run build)", "npm run build:dev", false},
		{"Bash(npm run build)", "npm 'run' \"build\"", true},
		{"Bash(npm run build)", "npm 'run build'", false},
		{`Bash(git commit -m "wip")`, "git commit -m 'wip'", true},
		{"Bash(git * main)", "git push origin main", true},
		{"Bash(git * main)", "git push origin dev", false},
		{"Bash(* --version)", "node --version", true},
		{`Bash(ls \*.go)`, "ls *.go", true},
		{`Bash(ls \*.go)`, "ls main.go", false},
		{"Bash(ls:*)", "ls *.go", true},
		{"Bash", "anything at all", true},
		{"Bash(*)", "anything at all", true},
		{"Bash(echo:*)", `echo "a; rm -rf /"`, true},
	} {
		r, err := ParseRule(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		cmds, err := SplitShell(tc.cmd)
		if err != nil || len(cmds) != 1 {
			t.Fatalf("%q: %v %v", tc.cmd, cmds, err)
		}
		s := subject{tool: "Bash", hasArg: true, arg: tc.cmd, text: matchText(cmds[0])}
		if got := r.matches(s); got != tc.want {
			t.Errorf("%s vs %q (%q): %v", tc.rule, tc.cmd, s.text, got)
		}
	}
}

func TestRuleMatchesPathsRelativeToWorkdir(t *testing.T) {
	env := Env{Workdir: "/work/proj", Home: "/home/u"}
	for _, tc := range []struct {
		rule, action string
		want         bool
	}{
		{"Read(**)", "Read(src/main.go)", true},
		{"Read(**)", "Read(/work/proj/a/b/c.go)", true},
		{"Read(**)", "Read(/etc/hosts)", false},
		{"Read(**)", "Read(../other/x)", false},
		{"Edit(src/**)", "Edit(src/a/b.go)", true},
		{"Edit(src/**)", "Write(src/a.go)", true},
		{"Edit(src/**)", "MultiEdit(src/a.go)", true},
		{"Edit(src/**)", "Edit(lib/a.go)", false},
		{"Edit(src/**)", "Edit(x/src/a.go)", false},
		{"Write(docs/*.md)", "Write(docs/a.md)", true},
		{"Write(docs/*.md)", "Write(docs/sub/a.md)", false},
		{"Write(docs/*.md)", "Edit(docs/a.md)", false},
		{"Edit(*.md)", "Edit(README.md)", true},
		{"Edit(*.md)", "Edit(docs/deep/x.md)", true},
		{"Edit(/README.md)", "Edit(README.md)", true},
		{"Edit(/README.md)", "Edit(docs/README.md)", false},
		{"Edit(docs/)", "Edit(docs/a/b.md)", true},
		{"Read(~/.zshrc)", "Read(~/.zshrc)", true},
		{"Read(~/.zshrc)", "Read(/home/u/.zshrc)", true},
		{"Read(~/.config/**)", "Read(/home/u/.config/git/config)", true},
		{"Read(//etc/hosts)", "Read(/etc/hosts)", true},
		{"Read(//etc/**)", "Read(/etc/ssl/certs/x.pem)", true},
		{"Read(//etc/**)", "Grep(/etc)", true},
		{"Read(//etc/**)", "Edit(/etc/hosts)", false},
		{"Read(src/**)", "Read(src/../../etc/passwd)", false},
	} {
		r, err := ParseRule(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		a, err := ParseAction(tc.action)
		if err != nil {
			t.Fatal(err)
		}
		abs, _ := env.clean().resolvePath(a.Arg)
		s := subject{tool: a.Tool, hasArg: a.HasArg, arg: a.Arg, abs: abs, env: env.clean()}
		if got := r.matches(s); got != tc.want {
			t.Errorf("%s vs %s (%s): %v", tc.rule, tc.action, abs, got)
		}
	}
}

func TestRuleMatchesOtherTools(t *testing.T) {
	for _, tc := range []struct {
		rule, action string
		want         bool
	}{
		{"WebFetch(domain:docs.*)", "WebFetch(https://docs.python.org/3/)", true},
		{"WebFetch(domain:docs.*)", "WebFetch(https://evil.com/docs.x)", false},
		{"WebFetch(domain:go.dev)", "WebFetch(https://GO.dev:443/doc)", true},
		{"WebFetch(domain:go.dev)", "WebFetch(go.dev/doc)", true},
		{"WebFetch(domain:go.dev)", "WebFetch(https://pkg.go.dev/)", false},
		{"WebFetch(domain:*.go.dev)", "WebFetch(https://pkg.go.dev/)", true},
		{"WebFetch", "WebFetch(https://anything/)", true},
		{"mcp__github", "mcp__github__create_issue", true},
		{"mcp__github", "mcp__githubx__create_issue", false},
		{"mcp__github__create_issue", "mcp__github__create_issue", true},
		{"mcp__github__create_issue", "mcp__github__delete_repo", false},
		{"mcp__github__*", "mcp__github__list", true},
		{"Task(reviewer)", "Task(reviewer)", true},
		{"Task(reviewer)", "Task(writer)", false},
		{"Skill(deploy-*)", "Skill(deploy-prod)", true},
		{"Read", "Glob(src)", true},
		{"Edit", "NotebookEdit(a.ipynb)", true},
		{"Edit", "Read(a)", false},
	} {
		r, err := ParseRule(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := ParseAction(tc.action)
		s := subject{tool: a.Tool, hasArg: a.HasArg, arg: a.Arg, host: urlHost(a.Arg)}
		if got := r.matches(s); got != tc.want {
			t.Errorf("%s vs %s: %v", tc.rule, tc.action, got)
		}
	}
}

func TestParseAction(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Action
	}{
		{"Bash(echo $(date))", Action{Tool: "Bash", Arg: "echo $(date)", HasArg: true}},
		{"WebSearch", Action{Tool: "WebSearch"}},
		{" Edit(src/a.go) ", Action{Tool: "Edit", Arg: "src/a.go", HasArg: true}},
		{"mcp__github__create_issue", Action{Tool: "mcp__github__create_issue"}},
	} {
		got, err := ParseAction(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v %v", tc.in, got, err)
		}
		if got.String() != strings.TrimSpace(tc.in) {
			t.Errorf("%q: String() = %q", tc.in, got.String())
		}
	}
	for _, bad := range []string{"", "Bash(x", "(x)", "Ba sh(x)"} {
		if _, err := ParseAction(bad); !errors.Is(err, ErrAction) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
