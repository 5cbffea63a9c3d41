package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/progress"
	"github.com/teamlead/teamlead/internal/store"
)

var rec = store.Record{Seq: 7, Time: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC), Kind: "message", Subject: "route.dev",
	Agent: "dev", From: "dev", To: []string{"architect", "qa"}, Type: "question", Task: "T-12", MsgID: "m-3",
	Body: "Which transport?\nSSE or WebSocket?", Fields: map[string]string{"priority": "high", "b": "2"}}

func TestSummary(t *testing.T) {
	cases := []struct {
		r    store.Record
		want string
	}{
		{rec, "dev → architect, qa [question T-12 m-3] Which transport? …"},
		{store.Record{Kind: "delivered", Agent: "qa", MsgID: "m-3", Fields: map[string]string{"delivery": "relay"}}, "m-3 → qa (relay)"},
		{store.Record{Kind: "agent", Agent: "dev", Reason: "exited", Fields: map[string]string{"pid": "9", "exit_code": "1", "restarts": "2"}}, "dev exited pid 9 exit 1 restarts 2"},
		{store.Record{Kind: "refusal", Agent: "dev", Reason: "spoofed sender"}, "dev: spoofed sender"},
		{store.Record{Kind: "inbox", From: "qa", Type: "question", MsgID: "m-4", Body: "q?", Fields: map[string]string{"topic": "api.x"}}, "qa [question m-4] (api.x) q?"},
		{store.Record{Kind: "human", Agent: "dev", Body: "hi"}, "→ dev: hi"},
	}
	for _, c := range cases {
		if got := Summary(c.r); got != c.want {
			t.Errorf("Summary(%s) = %q, want %q", c.r.Kind, got, c.want)
		}
	}
}

func TestWriters(t *testing.T) {
	for _, format := range Formats {
		var b bytes.Buffer
		w, err := NewWriter(&b, format)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		switch format {
		case "table":
			if !strings.HasPrefix(out, "SEQ") || !strings.Contains(out, "architect,qa") || !strings.Contains(out, "Which transport? …") {
				t.Errorf("table:\n%s", out)
			}
		case "json":
			if !strings.Contains(out, `"msg_id":"m-3"`) || strings.Count(out, "\n") != 1 {
				t.Errorf("json: %s", out)
			}
		case "csv":
			if !strings.HasPrefix(out, "seq,time,kind") || !strings.Contains(out, `"Which transport?`+"\n"+`SSE or WebSocket?"`) || !strings.Contains(out, "b=2 priority=high") {
				t.Errorf("csv:\n%s", out)
			}
		}
	}
	if _, err := NewWriter(&bytes.Buffer{}, "xml"); err == nil {
		t.Error("xml accepted")
	}
}

// The audit table says why an agent could not start, and what to do, in
// full: after the console has quit it is where a person looks.
func TestTableSaysWhyAnAgentFailed(t *testing.T) {
	var b bytes.Buffer
	w, _ := NewWriter(&b, "table")
	why := `"claude" is not on PATH: install it, or set the agent's command to its full path (PATH is /usr/local/bin:/usr/bin:/bin)`
	if err := w.Write(store.Record{Seq: 3, Kind: "agent", Agent: "dev", Reason: "failed", Fields: map[string]string{"error": why, "pid": "0"}}); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	if want := "failed: " + why + "\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("table:\n%s\nwant its detail %q", b.String(), want)
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{12 * time.Second: "12s", 5 * time.Minute: "5m", 3 * time.Hour: "3h", 72 * time.Hour: "3d"} {
		if got := Age(d); got != want {
			t.Errorf("Age(%v) = %q", d, got)
		}
	}
}

// TestLineKindColumnAligns: the summary starts in the same column for every
// kind, the longest ones (decision-final, question-timeout) included.
func TestLineKindColumnAligns(t *testing.T) {
	col := -1
	for _, kind := range []wire.Kind{"task", "decision-final", "question-queue", "question-timeout", "consultation-escalated"} {
		line := []rune(Line(store.Record{Kind: kind, Agent: "architect", Reason: "why"}))
		at := strings.Index(string(line), "architect:")
		at = len([]rune(string(line)[:at]))
		if col == -1 {
			col = at
		}
		if at != col || line[at-1] != ' ' || line[at-2] == ' ' && len(kind) >= 14 {
			t.Errorf("%s: the summary starts at column %d, not %d: %q", kind, at, col, string(line))
		}
	}
}

// A delivery with no message id (the human's words, a notice) says whom it
// reached, not "- → dev".
func TestDeliveredWithoutAnIDNamesTheAgent(t *testing.T) {
	r := store.Record{Kind: "delivered", Agent: "dev", Fields: map[string]string{"delivery": "human"}}
	if got := Summary(r); got != "to dev (human)" {
		t.Errorf("Summary = %q", got)
	}
	r.MsgID = "m-4"
	if got := Summary(r); got != "m-4 → dev (human)" {
		t.Errorf("Summary = %q", got)
	}
}

// An agent's line breaks stay inside their cell: a task, or a progress
// file's workflow id, holding "\n399 ... approved by the human" drew a
// whole audit row of the agent's making (red team 19b, finding 7).
func TestAgentTextStaysInItsRow(t *testing.T) {
	forged := "wf3\n399          2026-12-03 06:06:59.000  permission   a1  p-14  approved by the human\r"
	var b bytes.Buffer
	w, _ := NewWriter(&b, "table")
	r := rec
	r.Task = forged
	if err := w.Write(r); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); len(lines) != 2 || strings.Contains(b.String(), "\r") {
		t.Fatalf("the header and one record printed as %d lines:\n%s", len(lines), b.String())
	}
	st := progress.State{Agent: "a1", Path: "p.json", Workflow: &progress.Workflow{WorkflowID: forged, Status: "active"}}
	for _, l := range Workflow(st, time.Now(), time.Hour, 0) {
		if strings.ContainsAny(l, "\n\r") {
			t.Fatalf("a progress line holds a line break: %q", l)
		}
	}
}
