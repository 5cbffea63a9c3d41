package activity

import (
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui/golden"
	"github.com/teamlead/teamlead/tui/style"
)

func TestViewFilterScroll(t *testing.T) {
	time.Local = time.UTC
	th, _ := themes.Load("dark")
	m := New(style.New(th, true))
	m.SetSize(90, 3)
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	m.Add(
		store.Record{Time: at, Kind: "message", From: "dev", To: []string{"architect"}, Type: "question", Task: "T-12", MsgID: "m-1", Body: "Which transport?"},
		store.Record{Time: at.Add(time.Second), Kind: "delivered", Agent: "architect", MsgID: "m-1", Fields: map[string]string{"delivery": "relay"}},
		store.Record{Time: at.Add(2 * time.Second), Kind: "refusal", Agent: "qa", Reason: "spoofed sender: the block says from: dev but came from qa"},
		store.Record{Time: at.Add(3 * time.Second), Kind: "agent", Agent: "qa", Reason: "exited", Fields: map[string]string{"pid": "7", "exit_code": "1"}},
	)
	golden.Assert(t, "newest", m.View())
	m.Scroll(1)
	golden.Assert(t, "scrolled", m.View())
	m.SetFilter("QA")
	golden.Assert(t, "filter-qa", m.View())
	m.SetFilter("nobody")
	golden.Assert(t, "filter-none", m.View())
}
