package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	src := "# a comment\n" +
		"\n" +
		"say hello \\e[1mworld\\e[0m\r\n" +
		"say   indented\n" +
		"write no newline\\x21\n" +
		"  route from=dev to=architect type=question task=T-12 body=\"two\\nlines\" extra=\"say \\\"hi\\\"\"\n" +
		"route1 to=lead body=hi\n" +
		"gap topic=architecture.auth question=\"Cookies?\" urgency=high\n" +
		"chunk 3\n" +
		"expect ^hello\\s+world$\n" +
		"expectn 2 ^ok\n" +
		"timeout 2s\n" +
		"burst 5 route to=b{i} body=n{i}\n" +
		"sleep 10ms\n" +
		"ignore-term\n" +
		"size\n" +
		"idle\n" +
		"exit 4\n"
	cmds, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, c := range cmds {
		ops = append(ops, string(c.Op))
	}
	if got := strings.Join(ops, " "); got != "say say write route route1 gap chunk expect expectn timeout burst sleep ignore-term size idle exit" {
		t.Fatalf("ops = %s", got)
	}
	check := func(cond bool, what string) {
		t.Helper()
		if !cond {
			t.Fatalf("%s: %+v", what, cmds)
		}
	}
	check(cmds[0].Line == 3 && cmds[0].Text == "hello \x1b[1mworld\x1b[0m", "say with escapes and CRLF")
	check(cmds[1].Text == "  indented", "say keeps blanks after the first")
	check(cmds[2].Text == "no newline!", "write with \\x")
	r := cmds[3].Pairs
	check(len(r) == 6 && r[0] == Pair{"from", "dev"} && r[4] == Pair{"body", "two\nlines"} && r[5] == Pair{"extra", `say "hi"`}, "route pairs")
	check(cmds[6].N == 3, "chunk")
	check(cmds[7].Re.MatchString("hello   world") && cmds[7].N == 1, "expect regexp taken raw")
	check(cmds[8].N == 2 && cmds[8].Re.String() == "^ok", "expectn")
	check(cmds[9].Dur == 2*time.Second, "timeout")
	check(cmds[10].N == 5 && cmds[10].Sub.Op == OpRoute && cmds[10].Sub.Pairs[0] == Pair{"to", "b{i}"}, "burst")
	check(cmds[11].Dur == 10*time.Millisecond, "sleep")
	check(cmds[15].N == 4 && cmds[15].Line == 18, "exit")
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"say ok\nfrobnicate\n", `line 2: unknown command "frobnicate"`},
		{"say bad \\q", `line 1: say: unknown escape \q`},
		{"say bad \\x4", `line 1: say: \x wants two hex digits`},
		{"say bad \\xZZ", `\x wants two hex digits, got "ZZ"`},
		{"say trailing \\", `trailing \`},
		{"route to", `want key=value, got "to"`},
		{"route =x", `empty key`},
		{`route body="open`, `missing closing quote`},
		{`route a="x"y`, `want a blank after the closing quote`},
		{"chunk -1", "chunk: want a number"},
		{"exit 300", "exit: want a number (exit: 0-255)"},
		{"exit", "exit: want a number"},
		{"sleep soon", "sleep: want a duration"},
		{"timeout -1s", "timeout: want a duration"},
		{"expect", "expect: want a regular expression"},
		{"expect (", "expect: error parsing regexp"},
		{"expectn 0 x", "expectn: want a count"},
		{"expectn 2", "expectn: want a regular expression"},
		{"burst x route", "burst: want a count"},
		{"burst 2", "burst: want route, route1 or gap"},
		{"burst 2 say hi", `burst: want route, route1 or gap after the count, got "say"`},
		{"burst 2 nope", `unknown command "nope"`},
		{"idle now", "idle takes no arguments"},
		{"\n\n  size 3", "line 3: size takes no arguments"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want a ParseError containing %q", tt.src, err, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"say hi\nexit 0",
		`route to=a body="x\ny" k=v`,
		"burst 3 gap topic=t{i} question=q",
		"expectn 2 ^a(b|c)$",
		"say \\xzz",
		`route a="\"`,
		"chunk 1\nwrite \\e[?2004h",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		cmds, err := Parse(src)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for _, c := range cmds {
			if (c.Op == OpExpect || c.Op == OpExpectN) && c.Re == nil {
				t.Fatal("expect without regexp")
			}
			if c.Op == OpBurst && c.Sub == nil {
				t.Fatal("burst without command")
			}
		}
	})
}

func TestParseWriteFile(t *testing.T) {
	cmds, err := Parse("writefile .claude/state/progress.json {\"status\": \"in_progress\"}\\n")
	if err != nil || len(cmds) != 1 || cmds[0].Op != OpWriteFile || cmds[0].Path != ".claude/state/progress.json" || cmds[0].Text != "{\"status\": \"in_progress\"}\n" {
		t.Fatalf("%+v %v", cmds, err)
	}
	if _, err := Parse("writefile onlypath"); err == nil {
		t.Error("writefile without text accepted")
	}
}

func TestDialogAndExpectKeyParse(t *testing.T) {
	cmds, err := Parse("dialog codex rm -rf build/\nexpectkey \\e\n")
	if err != nil || len(cmds) != 2 || !strings.Contains(cmds[0].Text, "$ rm -rf build/") || cmds[1].Text != "\x1b" {
		t.Fatalf("%+v %v", cmds, err)
	}
	for _, bad := range []string{"dialog vim rm", "dialog claude-code", "expectkey"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
