package soak

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func mustParse(t *testing.T, text string) []Event {
	t.Helper()
	evs, err := ParseLog(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestParseLog(t *testing.T) {
	evs := mustParse(t, `start inc=1 pid=42
sent a01.1.1 to=a02,a03 type=question
recv m-7 from=a02 key=a02.1.4 type=status
ack m-9 to=a02,a03
ackl m-10
notice T-a01 "refused: spoofed sender: \"x\""
other m-11 from=a03 "hello there"
stopped
kill forced
sent a01.1.2 to=a0`)
	if len(evs) != 9 {
		t.Fatalf("%d events, want 9 (the unfinished last line is not one): %+v", len(evs), evs)
	}
	checks := []struct {
		got, want any
	}{
		{evs[0].Pid, 42}, {evs[1].Key, "a01.1.1"}, {strings.Join(evs[1].To, "|"), "a02|a03"}, {evs[1].Type, "question"},
		{evs[2].ID, "m-7"}, {evs[2].From, "a02"}, {evs[2].Key, "a02.1.4"}, {strings.Join(evs[3].To, "|"), "a02|a03"},
		{evs[4].ID, "m-10"}, {evs[5].Task, "T-a01"}, {evs[5].Body, `refused: spoofed sender: "x"`},
		{evs[6].From, "a03"}, {evs[6].Body, "hello there"}, {evs[7].Op, "stopped"}, {evs[7].Line, 8},
	}
	for i, c := range checks {
		if c.got != c.want {
			t.Errorf("check %d: got %v, want %v", i, c.got, c.want)
		}
	}
	for _, bad := range []string{"sent a01.1.1 to=a02\n", "recv m-1 from=a key=\n", "notice T-1 unquoted\n", "start inc=1 pid=x\n", "hello\n", "stopped now\n", "kill now\n"} {
		if _, err := ParseLog(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("ParseLog(%q) = %v, want an error naming line 1", bad, err)
		}
	}
}

// A tiny team: a01 sends to a02 and to a list; the logs are varied per case.
const (
	a01base = "start inc=1 pid=10\nsent a01.1.1 to=a02 type=status\nsent a01.1.2 to=a02,a03 type=status\nack m-1 to=a02\nack m-2 to=a02,a03\n"
	a02ok   = "start inc=1 pid=11\nrecv m-1 from=a01 key=a01.1.1 type=status\nrecv m-2 from=a01 key=a01.1.2 type=status\n"
	a03ok   = "start inc=1 pid=12\nrecv m-2 from=a01 key=a01.1.2 type=status\n"
)

func logsOf(t *testing.T, a01, a02, a03 string) map[string][]Event {
	return map[string][]Event{"a01": mustParse(t, a01), "a02": mustParse(t, a02), "a03": mustParse(t, a03)}
}

func TestCheckClean(t *testing.T) {
	tally, vs := Check(logsOf(t, a01base, a02ok, a03ok), Crashes{}, nil)
	if len(vs) != 0 {
		t.Fatalf("violations on clean logs: %v", vs)
	}
	if tally.Sent != 2 || tally.Received != 3 || tally.Acked != 3 || tally.AckedReceived != 3 || tally.Starts != 3 || tally.Unread != 0 {
		t.Errorf("tally %+v", tally)
	}
}

func TestCheckAckedLost(t *testing.T) {
	a03 := "start inc=1 pid=12\n" // never read m-2
	_, vs := Check(logsOf(t, a01base, a02ok, a03), Crashes{}, nil)
	if len(vs) != 1 || vs[0].Invariant != AckedLost || vs[0].MsgID != "m-2" || vs[0].Sender != "a01" || vs[0].Recipient != "a03" {
		t.Fatalf("want one acked-lost m-2 from a01 to a03, got %v", vs)
	}
	if !strings.Contains(vs[0].String(), `a01 was told "relayed m-2 to a02, a03", and a03 never read m-2`) {
		t.Errorf("message %q", vs[0])
	}
	// While running, a message still in its grace is not reported.
	if _, vs := Check(logsOf(t, a01base, a02ok, a03), Crashes{}, func(id, to string) bool { return id == "m-2" && to == "a03" }); len(vs) != 0 {
		t.Errorf("pending message reported: %v", vs)
	}
}

func TestCheckDuplicatesPerCrash(t *testing.T) {
	restarted := "start inc=2 pid=13\n"
	again1 := "recv m-1 from=a01 key=a01.1.1 type=status\n"
	again2 := "recv m-2 from=a01 key=a01.1.2 type=status\n"
	// Without a crash, no copy is allowed.
	_, vs := Check(logsOf(t, a01base, a02ok+again2, a03ok), Crashes{}, nil)
	if len(vs) != 1 || vs[0].Invariant != Duplicate || vs[0].Recipient != "a02" ||
		!strings.Contains(vs[0].Detail, "a02's process 1 (a02.log after start line 1) read 1 extra copies, 0 allowed: m-2") ||
		!strings.Contains(vs[0].Detail, "m-2 again at line 4") {
		t.Fatalf("want one duplicate violation for a02's first process, got %v", vs)
	}
	// A crash (a new process) may bring one copy of what was in flight.
	if _, vs := Check(logsOf(t, a01base, a02ok+restarted+again2, a03ok), Crashes{Console: 1}, nil); len(vs) != 0 {
		t.Errorf("one copy after a restart: %v", vs)
	}
	// Not two.
	_, vs = Check(logsOf(t, a01base, a02ok+restarted+again1+again2, a03ok), Crashes{Console: 5}, nil)
	if len(vs) != 1 || !strings.Contains(vs[0].Detail, "a02's process 2 (a02.log after start line 2) read 2 extra copies, 1 allowed (5 crashes hit a02 in all") {
		t.Errorf("two copies after one restart: %v", vs)
	}
	// One copy in each of two later processes is fine.
	if _, vs := Check(logsOf(t, a01base, a02ok+restarted+again1+"start inc=3 pid=14\n"+again2, a03ok), Crashes{Console: 2}, nil); len(vs) != 0 {
		t.Errorf("a copy after each of two restarts: %v", vs)
	}
	// Acknowledgements read twice count for their reader.
	a01 := a01base + "ack m-1 to=a02\n"
	if tally, vs := Check(logsOf(t, a01, a02ok, a03ok), Crashes{}, nil); len(vs) != 1 || vs[0].Recipient != "a01" || !strings.Contains(vs[0].Detail, "ack of m-1 again at line 6") || tally.ExtraCopies != 1 {
		t.Errorf("duplicate ack: %v (tally %+v)", vs, tally)
	}
}

func TestCheckNoticesAndStrays(t *testing.T) {
	a01 := a01base + `notice T-a01 "refused: spoofed sender: the block says from: a02 but came from a01."` + "\n" +
		`notice T-a01 "refused: spoofed sender: the block says from: team-lead but came from a01."` + "\n"
	a02 := a02ok + "recv m-5 from=a03 key=a03.1.1 type=status\n" + `other m-6 from=a03 "[ROUTE]"` + "\n"
	a03 := a03ok + "recv m-7 from=a02 key=a01.1.2 type=status\n"
	_, vs := Check(logsOf(t, a01, a02, a03), Crashes{}, nil)
	c := Count(vs)
	if c[Refusal] != 1 || c[NoticeOfNotice] != 1 || c[Stray] != 3 || len(vs) != 5 {
		t.Fatalf("counts %v, violations %v", c, vs)
	}
}

func TestJudgeMemory(t *testing.T) {
	samples := func(f func(s int) int64, n int) []rssSample {
		var rs []rssSample
		for s := 0; s < n; s++ {
			rs = append(rs, rssSample{console: 1, at: time.Duration(s) * time.Second, bytes: f(s)})
		}
		return rs
	}
	flat := samples(func(int) int64 { return 40 << 20 }, 60)
	if span, v := judgeMemory(flat, 15*time.Second, 10*time.Second, 0.5, 32<<20); v != "" || span.Early != 40<<20 || span.Late != 40<<20 {
		t.Errorf("flat: %q %+v", v, span)
	}
	leak := samples(func(s int) int64 { return int64(40<<20 + s*(4<<20)) }, 60) // 4 MB a second
	if _, v := judgeMemory(leak, 15*time.Second, 10*time.Second, 0.5, 32<<20); !strings.Contains(v, "RSS grew") {
		t.Errorf("leak not reported: %q", v)
	}
	if span, v := judgeMemory(leak[:20], 15*time.Second, 10*time.Second, 0.5, 32<<20); v != "" || span.Early != 0 {
		t.Errorf("a short-lived console is not judged: %q %+v", v, span)
	}
}

func TestParseAudit(t *testing.T) {
	recs, err := parseAudit(`{"seq":12,"kind":"refusal","agent":"a03","task":"T-a04","reason":"spoofed sender"}` + "\n\n")
	if err != nil || len(recs) != 1 || recs[0].seq != "12" || recs[0].agent != "a03" || recs[0].reason != "spoofed sender" {
		t.Fatalf("%+v %v", recs, err)
	}
	if _, err := parseAudit("teamlead: no state\n"); err == nil {
		t.Error("non-JSON audit output accepted")
	}
}

func FuzzParseLog(f *testing.F) {
	f.Add([]byte("start inc=1 pid=42\nsent a.1.1 to=b type=status\nrecv m-1 from=b key=b.1.1 type=status\n"))
	f.Add([]byte("ack m-9 to=a,b\nnotice T-1 \"x\\\"y\"\nother m-2 from=a \"z\"\nstopped\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := ParseLog(strings.NewReader(string(b)))
		for i, ev := range evs {
			if ev.Line != i+1 || ev.Op == "" {
				t.Fatalf("event %d: %+v", i, ev)
			}
		}
		if err == nil {
			// Whatever parsed can be checked without a panic.
			Check(map[string][]Event{"a": evs}, Crashes{}, nil)
		}
	})
}

// While running, a message whose sender's log was read before it sent is
// not a stray (the logs are read one after the other); the final check
// still catches a real one.
func TestCheckStrayWaitsForTheFinalCheck(t *testing.T) {
	a02 := a02ok + "recv m-5 from=a01 key=a01.1.3 type=status\n"
	if _, vs := Check(logsOf(t, a01base, a02, a03ok), Crashes{}, func(string, string) bool { return true }); len(vs) != 0 {
		t.Errorf("continuous check: %v", vs)
	}
	if _, vs := Check(logsOf(t, a01base, a02, a03ok), Crashes{}, nil); len(vs) != 1 || vs[0].Invariant != Stray {
		t.Errorf("final check: %v", vs)
	}
}

func TestRunRefusesAFolderInUse(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a01.log"), []byte("start inc=1 pid=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Options{Teamlead: "teamlead", Mockagent: "mockagent", Dir: dir, Agents: 2, Duration: time.Second, Rate: 1})
	if err == nil || !strings.Contains(err.Error(), "is not empty (a01.log, …)") {
		t.Errorf("err = %v", err)
	}
	if _, err := Run(context.Background(), Options{Dir: dir, Agents: 1, Duration: time.Second, Rate: 1}); err == nil {
		t.Error("one agent accepted")
	}
}

// The failure message names each violation's message id, sender and
// recipient, the count per invariant, the seed and where the logs are.
func TestFormatNamesWhatBroke(t *testing.T) {
	_, vs := Check(logsOf(t, a01base, a02ok, "start inc=1 pid=12\n"), Crashes{}, nil)
	r := &Result{Options: Options{Seed: 77, Dir: "/tmp/soak-x", Duration: time.Minute, Rate: 1}, Names: []string{"a01", "a02", "a03"},
		Echoing: map[string]bool{"a01": true, "a03": true}, Crashes: Crashes{Console: 1, Agent: map[string]int{"a02": 2}},
		Violations: vs, Seen: map[string]int{AckedLost: 1}}
	var b strings.Builder
	r.Format(&b)
	out := b.String()
	for _, want := range []string{
		"seed 77, 3 agents (2 echoing, 1 raw)",
		"kills: console 1 (0 console processes), agents 2 (a02 x2)",
		"    acked-lost             1  [1]  BROKEN\n",
		"    duplicate              0  [0]  ok\n",
		`acked-lost: m-2 from a01 to a03: a01 was told "relayed m-2 to a02, a03", and a03 never read m-2`,
		"logs in /tmp/soak-x:",
		"rerun with the same choices: seed 77",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
