package main

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuf is a goroutine-safe output that records each write.
type syncBuf struct {
	mu     sync.Mutex
	b      strings.Builder
	writes int
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func runScript(t *testing.T, src string, input ...string) (string, int, bool, *syncBuf) {
	t.Helper()
	cmds, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuf{}
	in := newInputLines()
	for _, s := range input {
		in.feed([]byte(s))
	}
	in.close()
	r := &runner{
		out:   out,
		in:    in,
		name:  "dev",
		size:  func() (int, int, error) { return 80, 24, nil },
		sleep: func(time.Duration) {},
	}
	code, exit := r.run(cmds)
	return out.String(), code, exit, out
}

func TestRunOutput(t *testing.T) {
	src := `say hello {name}
write a\tb
route from={name} to=architect body="line one\nline two" type=question task=T-12
route1 from=dev to=lead type=status task=T-1 body=hi
gap topic=architecture.auth question="Cookies?" context=ctx urgency=high
burst 2 route1 to=b{i} body=n{i}
size
exit 5
say never`
	out, code, exit, _ := runScript(t, src)
	want := "hello dev\n" +
		"a\tb" +
		"[ROUTE]\nfrom: dev\nto: architect\ntype: question\ntask: T-12\nbody: line one\nline two\n[/ROUTE]\n" +
		"[ROUTE] from: dev to: lead type: status task: T-1 body: hi [/ROUTE]\n" +
		"<gap>\n  <topic>architecture.auth</topic>\n  <question>Cookies?</question>\n  <context>ctx</context>\n  <urgency>high</urgency>\n</gap>\n" +
		"[ROUTE] to: b1 body: n1 [/ROUTE]\n[ROUTE] to: b2 body: n2 [/ROUTE]\n" +
		"size 80x24\n"
	if out != want {
		t.Fatalf("output:\n%q\nwant:\n%q", out, want)
	}
	if code != 5 || !exit {
		t.Fatalf("code %d exit %v", code, exit)
	}
}

func TestRunChunk(t *testing.T) {
	out, _, exit, buf := runScript(t, "chunk 2\nwrite abcdefg\nchunk 0\nwrite hij")
	if out != "abcdefghij" || exit {
		t.Fatalf("out %q exit %v", out, exit)
	}
	if buf.writes != 5 {
		t.Fatalf("%d writes, want 4 of 2 bytes and 1 whole", buf.writes)
	}
}

func TestRunExpect(t *testing.T) {
	out, code, exit, _ := runScript(t, "expect ^hello$\nsay got hello\nexpectn 2 ^ok\nsay got oks\nidle\nsay never",
		"noise\r\n\x1b[200~hel", "lo\x1b[201~\rok 1\nnot ok\rok 2\n")
	if out != "got hello\ngot oks\n" || code != 0 || exit {
		t.Fatalf("out %q code %d exit %v", out, code, exit)
	}
}

func TestRunExpectTimeout(t *testing.T) {
	cmds, _ := Parse("timeout 20ms\nexpect ^never$")
	out := &syncBuf{}
	r := &runner{out: out, in: newInputLines()}
	code, exit := r.run(cmds)
	if code != 3 || !exit || out.String() != "mockagent: timeout waiting for ^never$\n" {
		t.Fatalf("code %d exit %v out %q", code, exit, out.String())
	}
}

func TestRunExpectEOF(t *testing.T) {
	out, code, exit, _ := runScript(t, "expect ^x$", "y\n")
	if code != 3 || !exit || !strings.Contains(out, "input closed while waiting for ^x$") {
		t.Fatalf("code %d exit %v out %q", code, exit, out)
	}
}

func TestInputLines(t *testing.T) {
	in := newInputLines()
	in.feed([]byte("a\r"))
	in.feed([]byte("\nb\n\nc\x1b[31m!\x1b[0m\rd"))
	in.close()
	var got []string
	for {
		line, ok, eof := in.next(time.Now().Add(time.Second))
		if eof {
			break
		}
		if !ok {
			t.Fatal("timeout")
		}
		got = append(got, line)
	}
	if strings.Join(got, "|") != "a|b||c!|d" {
		t.Fatalf("lines %q", got)
	}
}

func TestRealMainUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-e", "say ok\nbogus"},
		{},
		{"-e", "say x", "file"},
		{"/no/such/script"},
		{"--nope"},
	} {
		if code := realMain(args); code != exitUsage {
			t.Errorf("realMain(%q) = %d, want %d", args, code, exitUsage)
		}
	}
}

// A named group of expect is captured and substituted as {VAR} later.
func TestExpectCaptures(t *testing.T) {
	cmds, err := Parse("expect ^consult: (?P<id>c-\\d+)$\nroute to=team-lead type=verdict consult={id} task=T body=ok\n")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	in := newInputLines()
	in.feed([]byte("consult: c-42\r"))
	r := &runner{out: &out, in: in, timeout: time.Second}
	if code, _ := r.run(cmds); code != exitOK || !strings.Contains(out.String(), "consult: c-42\n") {
		t.Fatalf("%d %q", code, out.String())
	}
}
