package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/store"
)

// testAgent is one agent of a test team: a bash script run on a real PTY.
type testAgent struct {
	name, role, script, restart string
}

// running is an engine started on a real store with real agents.
type running struct {
	t      *testing.T
	e      *Engine
	st     *store.Store
	dir    string
	cancel context.CancelFunc
}

// startEngine writes a team file with agents (and extra YAML appended),
// loads it, and starts an engine on a fresh store in a temporary folder.
func startEngine(t *testing.T, extra string, as ...testAgent) *running {
	t.Helper()
	return startEngineIn(t, t.TempDir(), extra, as...)
}

// startEngineIn is startEngine with the team (its file, its agents'
// folder) in dir.
func startEngineIn(t *testing.T, dir, extra string, as ...testAgent) *running {
	t.Helper()
	var b strings.Builder
	b.WriteString("agents:\n")
	for _, a := range as {
		script := filepath.Join(dir, a.name+".sh")
		if err := os.WriteFile(script, []byte(a.script), 0o600); err != nil {
			t.Fatal(err)
		}
		role := a.role
		if role == "" {
			role = a.name
		}
		restart := a.restart
		if restart == "" {
			restart = "never"
		}
		fmt.Fprintf(&b, "  - name: %s\n    role: %s\n    restart: %s\n    command: [bash, %q]\n", a.name, role, restart, script)
	}
	b.WriteString(extra)
	file := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	team, err := config.LoadTeam(file)
	if err != nil {
		t.Fatal(err)
	}
	return startLoaded(t, dir, team)
}

func startLoaded(t *testing.T, dir string, team *config.Team) *running {
	t.Helper()
	st, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Options{Team: team, Store: st, Grace: 500 * time.Millisecond, Backoff: 50 * time.Millisecond})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := e.Start(ctx); err != nil {
		cancel()
		st.Close()
		t.Fatal(err)
	}
	r := &running{t: t, e: e, st: st, dir: dir, cancel: cancel}
	t.Cleanup(r.stop)
	return r
}

// stop ends the engine and waits for every agent to be gone.
func (r *running) stop() {
	r.t.Helper()
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	select {
	case <-r.e.Done():
	case <-time.After(30 * time.Second):
		r.t.Fatal("the engine did not stop within 30 s")
	}
	if err := r.st.Close(); err != nil {
		r.t.Errorf("closing the store: %v", err)
	}
}

// records lists the committed records of kind (all when "").
func (r *running) records(kind wire.Kind) []store.Record {
	r.t.Helper()
	recs, err := r.st.Query(store.Query{Kind: kind})
	if err != nil {
		r.t.Fatal(err)
	}
	return recs
}

// waitRecords waits until cond holds for the records of kind.
func (r *running) waitRecords(kind wire.Kind, what string, cond func([]store.Record) bool) []store.Record {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		recs := r.records(kind)
		if cond(recs) {
			return recs
		}
		if time.Now().After(deadline) {
			var lines []string
			for _, rec := range r.records("") {
				lines = append(lines, fmt.Sprintf("%s %s %s %s %q %v", rec.Kind, rec.Agent, rec.MsgID, rec.Reason, rec.Body, rec.Fields))
			}
			r.t.Fatalf("timed out waiting for %s; records:\n%s", what, strings.Join(lines, "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitState waits until the lead sees agent in state.
func (r *running) waitState(agent, state string) {
	r.t.Helper()
	r.waitRecords(wire.KindAgent, agent+" "+state, func(recs []store.Record) bool {
		for _, rec := range recs {
			if rec.Agent == agent && rec.Reason == state {
				return true
			}
		}
		return false
	})
}

// cursorQuery asks the terminal where the cursor is as its first output,
// waits for the answer, and reports it in a [ROUTE] to team-lead.
const cursorQuery = `stty -echo -icanon
printf '\033[6n'
IFS= read -r -d R r
printf '[ROUTE] to: team-lead type: status task: T-1 body: cursor at %s [/ROUTE]\n' "${r#*[}"
exec sleep 600
`

// Issue 12 item 4: every agent asks ESC[6n as it starts, so the emulator
// answers on its own goroutine while Start is still starting the others.
// Under -race the old Start (filling the agents map as the answers were
// typed) failed every time; every answer must arrive, and stopping ends
// every agent.
func TestStartAndStopManyAgentsAskingCursorPosition(t *testing.T) {
	const n = 16
	var as []testAgent
	for i := range n {
		as = append(as, testAgent{name: fmt.Sprintf("a%02d", i), script: cursorQuery})
	}
	r := startEngine(t, "", as...)
	msgs := r.waitRecords(wire.KindMessage, "every agent's cursor report", func(recs []store.Record) bool { return len(recs) >= n })
	seen := map[string]bool{}
	for _, m := range msgs {
		if !strings.HasPrefix(m.Body, "cursor at ") || !strings.Contains(m.Body, ";") {
			t.Errorf("%s said %q, not a cursor position", m.Agent, m.Body)
		}
		seen[m.Agent] = true
	}
	if len(seen) != n {
		t.Errorf("%d agents reported, want %d: %v", len(seen), n, seen)
	}
	for _, a := range r.e.Agents() {
		if a.State != "running" || a.Pid == 0 {
			t.Errorf("agent %s: %+v", a.Name, a)
		}
	}
	r.stop()
	st, err := store.Open(filepath.Join(r.dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	states, _ := st.Query(store.Query{Kind: wire.KindAgent})
	stopped := map[string]bool{}
	for _, s := range states {
		if s.Reason == string(wire.StateStopped) {
			stopped[s.Agent] = true
		}
	}
	if len(stopped) != n {
		t.Errorf("%d agents recorded as stopped, want %d", len(stopped), n)
	}
}

// TestHeadRunAfterACrash: of an agent's pending deliveries, the first may
// have been read before the crash, and when it is a notice so may the
// notices typed with it (MaxMergedNotices at most); nothing after a
// message that is not a notice, or past the bound.
func TestHeadRunAfterACrash(t *testing.T) {
	d := func(kind string) store.Delivery { return store.Delivery{Agent: "a", Kind: kind} }
	for _, tc := range []struct {
		kinds    []string
		want     string
		withNext bool
	}{
		{[]string{lead.DeliverRelay, lead.DeliverAck, lead.DeliverAck}, "yes no no", false},
		{[]string{lead.DeliverAck, lead.DeliverNotice, lead.DeliverAck, lead.DeliverRelay, lead.DeliverAck}, "yes yes yes no no", false},
		{[]string{lead.DeliverHuman}, "yes", false},
		// Acknowledgements that wait for the next text (acks: with-next)
		// went in with the message after them.
		{[]string{lead.DeliverAck, lead.DeliverAck, lead.DeliverRelay, lead.DeliverRelay}, "yes yes yes no", true},
		{[]string{lead.DeliverRelay, lead.DeliverRelay}, "yes no", true},
		{[]string{lead.DeliverNotice, lead.DeliverHuman, lead.DeliverAck}, "yes yes no", true},
	} {
		h := &headRun{open: true, withNext: tc.withNext}
		var got []string
		for _, k := range tc.kinds {
			got = append(got, map[bool]string{true: "yes", false: "no"}[h.mayHaveBeenRead(d(k))])
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%v: %v, want %s", tc.kinds, got, tc.want)
		}
	}
	h := &headRun{open: true}
	n := 0
	for range agents.MaxMergedNotices + 3 {
		if h.mayHaveBeenRead(d(lead.DeliverAck)) {
			n++
		}
	}
	if n != agents.MaxMergedNotices {
		t.Errorf("%d acknowledgements in a row may have been read, want %d", n, agents.MaxMergedNotices)
	}
}
