package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/protocol"

	"github.com/teamlead/teamlead/bus"
	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/trust"
)

// fakeConsole is a console with a real store and bus but no agents.
type fakeConsole struct {
	st *store.Store
	b  *bus.Embedded
	mu sync.Mutex
	// asAgent is the agent the console's children belong to ("": none).
	asAgent string
	sent    []string
}

func (f *fakeConsole) Agents() []readmodel.AgentInfo {
	return []readmodel.AgentInfo{{Name: "dev", Role: "developer", State: "running", Pid: 42}}
}

func (f *fakeConsole) Send(agent, text string) error {
	if agent != "dev" {
		return fmt.Errorf("unknown agent %q", agent)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, agent+":"+text)
	return nil
}

func (f *fakeConsole) Inbox() []lead.InboxItem {
	return []lead.InboxItem{{ID: "m-3", From: "dev", Type: "question", Body: "ship it?"}}
}

func (f *fakeConsole) Ask(a questions.Ask) (questions.Question, error) {
	f.record("ask " + a.Asker + " " + a.Topic + " " + a.Text)
	return questions.Question{ID: "q-0001", Asker: a.Asker, Topic: a.Topic, Text: a.Text}, nil
}

// AgentOfSession names every process of the console's (the test's
// children) as agent asAgent, when set: the kernel's word, as the
// witness reads it.
func (f *fakeConsole) AgentOfSession(int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asAgent
}

func (f *fakeConsole) Route(agent string, env protocol.Envelope) ([]string, bool, error) {
	f.record("route " + agent + " " + env.Get("to") + " " + env.Body)
	return []string{"relayed m-1 to " + env.Get("to")}, false, nil
}

func (f *fakeConsole) Escalate(id string) error { f.record("escalate " + id); return nil }

func (f *fakeConsole) Acknowledge(id string) error { f.record("acknowledge " + id); return nil }

func (f *fakeConsole) Drop(id, reason string) error { return nil }

func (f *fakeConsole) Reassign(id, answerer string) error {
	f.record("reassign " + id + " " + answerer)
	return nil
}

func (f *fakeConsole) HookPermission(agent, action, _ string) (approvals.Request, error) {
	f.record("permission " + agent + " " + action)
	return approvals.Request{ID: "p-1", Agent: agent, Action: action, Status: approvals.Approved}, nil
}

func (f *fakeConsole) HookState(agent, state string)      { f.record("hook-state " + agent + " " + state) }
func (f *fakeConsole) AgentTranscript(agent, path string) {}

func (f *fakeConsole) AgentSession(agent, id string) {
	if id != "" {
		f.record("session " + agent + " " + id)
	}
}

func (f *fakeConsole) Impersonation(agent, op, why string, fields map[string]string) {
	f.record("impersonation " + agent + " " + op + " pid=" + fields["pid"])
}

func (f *fakeConsole) Merged(agent, text string) error {
	f.record("merged " + agent + ": " + text)
	return nil
}

func (f *fakeConsole) ProtectMore(protect, hide []string) error {
	f.record(fmt.Sprintf("protect %v hide %v", protect, hide))
	return nil
}

func (f *fakeConsole) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, s)
}

func (f *fakeConsole) AnswerAny(id, text string) error {
	if strings.HasPrefix(id, "p-") {
		return f.decide(id, text)
	}
	if lead.IsQuestionID(id) {
		return nil
	}
	if id != "m-3" {
		return fmt.Errorf("%w: %q", lead.ErrNoItem, id)
	}
	return f.Send("dev", "answer "+id+": "+text)
}

// decide decides the stored permission request id as the human: approve,
// always SCOPE, or deny MESSAGE.
func (f *fakeConsole) decide(id, text string) error {
	v, ok, err := f.st.Meta(lead.MetaPermission + id)
	if err != nil || !ok {
		return fmt.Errorf("no permission request %s", id)
	}
	var r approvals.Request
	if err := json.Unmarshal([]byte(v), &r); err != nil {
		return err
	}
	word, rest, _ := strings.Cut(text, " ")
	r.Status, r.DecidedBy = approvals.Approved, "human"
	switch {
	case word == "always" && r.Action == "Bash(npm install 'left-pad')": // allowed by a rule added since it was asked
		r.Note = approvals.NoRuleNote + "the policy allows it already (Bash(npm install left-pad:*) at permissions.yaml:14)"
	case word == "always":
		r.Note = approvals.AlwaysNote + "Bash(npm install left-pad:*) added to permissions.yaml"
	case word == "deny":
		r.Status, r.Note = approvals.Denied, rest
	}
	b, _ := json.Marshal(r)
	return f.st.Commit(&store.Batch{Meta: map[string]string{lead.MetaPermission + id: string(b)}})
}

// PlanAlways plans as the engine would for the stored request id: the
// rule for its package, or none once a rule allows it.
func (f *fakeConsole) PlanAlways(id, scope string) (permit.AlwaysPlan, error) {
	v, ok, err := f.st.Meta(lead.MetaPermission + id)
	if err != nil || !ok {
		return permit.AlwaysPlan{}, fmt.Errorf("%w: %s", approvals.ErrNoRequest, id)
	}
	var r approvals.Request
	if err := json.Unmarshal([]byte(v), &r); err != nil {
		return permit.AlwaysPlan{}, err
	}
	switch {
	case r.Done():
		return permit.AlwaysPlan{}, fmt.Errorf("%w: %s was %s by %s", approvals.ErrDecided, id, r.Status, r.DecidedBy)
	case r.Action == "Bash(npm install 'left-pad')":
		return permit.AlwaysPlan{Why: "the policy allows it already (Bash(npm install left-pad:*) at permissions.yaml:14)"}, nil
	case scope == "exact":
		return permit.AlwaysPlan{Rules: []string{"Bash(npm install left-pad)"}}, nil
	}
	return permit.AlwaysPlan{Rules: []string{"Bash(npm install left-pad:*)"}}, nil
}

func (f *fakeConsole) Store() *store.Store { return f.st }
func (f *fakeConsole) Bus() bus.Bus        { return f.b }

func (f *fakeConsole) commit(t *testing.T, recs ...store.Record) {
	t.Helper()
	b := store.Batch{Records: recs}
	if err := f.st.Commit(&b); err != nil {
		t.Fatal(err)
	}
	f.b.Publish(b.Records...)
}

func newConsole(t *testing.T) (*fakeConsole, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &fakeConsole{st: st, b: bus.NewEmbedded(st)}, dir
}

func listen(t *testing.T, c Console, dir string) *Server {
	t.Helper()
	srv, err := Listen(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func TestSocketRoundTrip(t *testing.T) {
	con, dir := newConsole(t)
	con.commit(t, store.Record{Kind: "message", Subject: "route.dev", Agent: "dev", From: "dev", Task: "T-1", Body: "hello"})
	srv := listen(t, con, dir)

	fi, err := os.Stat(srv.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("socket mode %v, want a 0600 socket", fi.Mode())
	}
	c, err := NewClient(dir)
	if err != nil {
		t.Fatal(err)
	}
	agents, err := c.Agents()
	if err != nil || len(agents) != 1 || agents[0].Pid != 42 {
		t.Fatalf("agents %+v %v", agents, err)
	}
	if done, err := c.Send("dev", "carry on"); err != nil || done != "sent to dev: carry on" {
		t.Fatal(done, err)
	}
	if _, err := c.Send("ghost", "x"); !errors.Is(err, ErrRemote) || !strings.Contains(err.Error(), `unknown agent "ghost"`) {
		t.Errorf("send to unknown agent: %v", err)
	}
	inbox, err := c.Inbox()
	if err != nil || len(inbox) != 1 || inbox[0].ID != "m-3" {
		t.Fatalf("inbox %+v %v", inbox, err)
	}
	if done, err := c.Answer("m-3", "yes"); err != nil || done != "answered m-3 (dev's question: ship it?); the answer goes to dev" {
		t.Fatal(done, err)
	}
	if _, err := c.Answer("m-9", "yes"); err == nil || !strings.Contains(err.Error(), "no such pending item") {
		t.Errorf("answer to unknown item: %v", err)
	}
	con.mu.Lock()
	if strings.Join(con.sent, ",") != "dev:carry on,dev:answer m-3: yes" {
		t.Errorf("sent %v", con.sent)
	}
	con.mu.Unlock()

	var got []store.Record
	if err := c.Audit(store.Query{Task: "T-1"}, func(r store.Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Body != "hello" {
		t.Errorf("audit %+v", got)
	}
}

func TestWatchStreamsNewRecords(t *testing.T) {
	con, dir := newConsole(t)
	con.commit(t, store.Record{Kind: "message", Subject: "route.dev", Agent: "dev", Body: "old"})
	listen(t, con, dir)
	c, err := NewClient(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan store.Record, 10)
	stop := errors.New("enough")
	done := make(chan error, 1)
	after := con.st.LastSeq() // everything after "old", replayed from the store if need be
	go func() {
		done <- c.Watch("route.*", store.Query{AfterSeq: after}, func(r store.Record) error {
			got <- r
			if r.Body == "second" {
				return stop
			}
			return nil
		})
	}()
	// Records committed after the watch started arrive; the old one does not,
	// and neither does one on another subject.
	con.commit(t, store.Record{Kind: "message", Subject: "route.dev", Agent: "dev", Body: "first"})
	con.commit(t, store.Record{Kind: "agent", Subject: "agent.dev.state", Agent: "dev", Body: "other subject"})
	con.commit(t, store.Record{Kind: "message", Subject: "route.qa", Agent: "qa", Body: "second"})
	select {
	case err := <-done:
		if !errors.Is(err, stop) {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watch did not deliver")
	}
	close(got)
	var bodies []string
	for r := range got {
		bodies = append(bodies, r.Body)
	}
	if strings.Join(bodies, ",") != "first,second" {
		t.Errorf("watched %v", bodies)
	}
}

// A process started while the socket is made keeps the console's umask:
// the socket's narrower one (0177) once reached an agent started at that
// moment, which then made every file 0600 (a binary it copied could not be
// run).
func TestListenLeavesTheUmaskOfProcessesStartedMeanwhile(t *testing.T) {
	con, _ := newConsole(t)
	stop, seen := make(chan struct{}), make(chan string, 1)
	go func() {
		defer close(seen)
		for {
			select {
			case <-stop:
				return
			default:
			}
			out, _ := exec.Command("/bin/sh", "-c", "umask").Output()
			if u := strings.TrimSpace(string(out)); u == "0177" {
				seen <- u
				return
			}
		}
	}()
	for i := 0; i < 300; i++ {
		srv, err := Listen(t.TempDir(), con)
		if err != nil {
			t.Fatal(err)
		}
		srv.Close()
	}
	close(stop)
	if u, ok := <-seen; ok {
		t.Fatalf("a process started meanwhile got the socket's umask %s", u)
	}
}

func TestSecondConsoleRefusedStaleSocketReplaced(t *testing.T) {
	con, dir := newConsole(t)
	srv := listen(t, con, dir)
	if _, err := Listen(dir, con); !errors.Is(err, ErrRunning) {
		t.Errorf("second Listen: %v, want ErrRunning", err)
	}
	srv.Close()
	if _, err := NewClient(dir); !errors.Is(err, ErrNoConsole) {
		t.Errorf("client with no console: %v", err)
	}
	// A socket file left by a console that was killed is replaced.
	path := filepath.Join(dir, SocketName)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("stale socket not left behind: %v", err)
	}
	listen(t, con, dir)
	if _, err := NewClient(dir); err != nil {
		t.Errorf("client after replacing a stale socket: %v", err)
	}
}

// TestOtherUserRefused connects as another user: first the socket's mode
// keeps it out; with the mode opened up, the peer-credential check still
// refuses it.
func TestOtherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("connecting as another user needs root to switch users")
	}
	con, dir := newConsole(t)
	srv := listen(t, con, dir)
	exe := copyTestBinary(t)
	for _, p := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	asNobody := func() string {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "TEAMLEAD_TEST_DIAL="+srv.Path())
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := asNobody(); !strings.Contains(out, "permission denied") {
		t.Errorf("with mode 0600, nobody got: %q", out)
	}
	if err := os.Chmod(srv.Path(), 0o666); err != nil {
		t.Fatal(err)
	}
	if out := asNobody(); !strings.Contains(out, "refused: uid 65534 is not the console's owner") {
		t.Errorf("with mode 0666, nobody got: %q", out)
	}
}

// copyTestBinary copies this test binary where another user can run it.
func copyTestBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "teamlead-peer")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	exe := filepath.Join(dir, "peer.test")
	dst, err := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	return exe
}

// TestMain lets the test binary act as a bare client for TestOtherUserRefused.
func TestMain(m *testing.M) {
	if path := os.Getenv("TEAMLEAD_TEST_DIAL"); path != "" {
		c, err := net.Dial("unix", path)
		if err != nil {
			fmt.Println("dial:", err)
			os.Exit(0)
		}
		req := os.Getenv("TEAMLEAD_TEST_REQ")
		if req == "" {
			req = `{"cmd":"agents"}`
		}
		fmt.Fprintln(c, req)
		b, _ := io.ReadAll(c)
		fmt.Print(string(b))
		os.Exit(0)
	}
	if os.Getenv("TEAMLEAD_TEST_WRITE_FD") != "" {
		// A connection handed to this process (fd 3): it writes the request.
		c := os.NewFile(3, "conn")
		fmt.Fprintln(c, os.Getenv("TEAMLEAD_TEST_REQ"))
		b := make([]byte, 4096)
		n, _ := c.Read(b)
		fmt.Print(string(b[:n]))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The process that writes the request is the caller, as much as the one
// that connected: the console (here, the test) connects and hands the
// connection to a process of its own (an agent's, as the sandbox's init
// connects for its agent: agents/connectguard_linux.go), which writes a
// human's operation: refused, and recorded with the writer's pid.
func TestWriterOfAHandedConnectionIsTheCaller(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the writer is known from SCM_CREDENTIALS, on Linux")
	}
	con, dir := newConsole(t)
	srv := listen(t, con, dir)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", srv.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := c.(*net.UnixConn).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), "TEAMLEAD_TEST_WRITE_FD=1", `TEAMLEAD_TEST_REQ={"cmd":"send","agent":"dev","text":"hi"}`)
	cmd.ExtraFiles = []*os.File{f}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "refused: only the human may") || !strings.Contains(string(out), "descends from the console") {
		t.Errorf("a human's operation written by a process of the console's on the console's connection: %q", out)
	}
	con.mu.Lock()
	defer con.mu.Unlock()
	want := "pid=" + strconv.Itoa(cmd.Process.Pid)
	if len(con.sent) != 1 || !strings.HasPrefix(con.sent[0], "impersonation ") || !strings.Contains(con.sent[0], want) {
		t.Errorf("recorded %q, want one impersonation with %s", con.sent, want)
	}
}

// TestAgentProcessRefusedHumanOps: a process the console started (here:
// a child of the test, which is the console) may read the console's state
// but not act as the human; each refusal is recorded with its pid.
func TestAgentProcessRefusedHumanOps(t *testing.T) {
	con, dir := newConsole(t)
	srv := listen(t, con, dir)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	asChild := func(req string) string {
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), "TEAMLEAD_TEST_DIAL="+srv.Path(), "TEAMLEAD_TEST_REQ="+req)
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	for _, req := range []string{
		`{"cmd":"answer","id":"p-1","text":"approve"}`,
		`{"cmd":"answer","id":"c-1","text":"approve looks fine"}`,
		`{"cmd":"answer","id":"p-1","text":"always tool all"}`,
		`{"cmd":"always-plan","id":"p-1","text":"prefix"}`,
		`{"cmd":"send","agent":"dev","text":"hi"}`,
		`{"cmd":"escalate","id":"q-0001"}`,
		`{"cmd":"reassign","id":"q-0001","text":"human/me"}`,
		`{"cmd":"acknowledge","id":"c-1"}`,
		`{"cmd":"drop","id":"q-0001"}`,
		`{"cmd":"merged","agent":"dev","text":"merged teamlead/dev"}`,
		`{"cmd":"no-such-command"}`,
	} {
		out := asChild(req)
		if !strings.Contains(out, "refused: only the human may") || !strings.Contains(out, "descends from the console") {
			t.Errorf("%s: got %q", req, out)
		}
	}
	if out := asChild(`{"cmd":"agents"}`); !strings.Contains(out, `"name":"dev"`) {
		t.Errorf("agents from an agent's process: %q", out)
	}
	// The fake knows no agent: an agent's process it cannot name may not ask either.
	if out := asChild(`{"cmd":"ask","ask":{"topic":"t","text":"q"}}`); !strings.Contains(out, "which agent can no longer be told") {
		t.Errorf("ask from an unnamed agent process: %q", out)
	}
	// Nor send through an agent's tool; and the human's own shell sends as
	// the human, with teamlead send, never as an agent.
	if out := asChild(`{"cmd":"route","route":{"headers":{"to":"dev","type":"status","task":"T-1"},"body":"hi"}}`); !strings.Contains(out, "which agent can no longer be told") {
		t.Errorf("route from an unnamed agent process: %q", out)
	}
	if _, _, err := (&Client{path: srv.Path()}).Route(map[string]string{"to": "dev", "type": "status", "task": "T-1"}, "hi"); err == nil || !strings.Contains(err.Error(), "only an agent's teamlead tool") {
		t.Errorf("route from the human's process: %v", err)
	}
	con.mu.Lock()
	defer con.mu.Unlock()
	var refusals int
	for _, c := range con.sent {
		if !strings.HasPrefix(c, "impersonation ") {
			t.Errorf("carried out for an agent's process: %q", c)
			continue
		}
		refusals++
		if strings.HasSuffix(c, "pid=0") || strings.HasSuffix(c, "pid=") {
			t.Errorf("refusal without the process's pid: %q", c)
		}
	}
	if refusals != 13 {
		t.Errorf("%d refusals recorded, want 13: %q", refusals, con.sent)
	}
}

// Each of the human's operations says what it changed, naming the item as
// the human knows it; an answer to an item that is not pending names the
// questions waiting for the human.
func TestOperationsSayWhatTheyChanged(t *testing.T) {
	con, dir := newConsole(t)
	now := time.Now()
	meta := map[string]string{}
	for i, action := range []string{"Bash(rm -rf /srv/x)", "Bash(npm install left-pad)", "Bash(git push --force)", "Bash(npm install 'left-pad')"} {
		r := approvals.Request{ID: fmt.Sprintf("p-%d", i+2), Agent: "dev", Action: action, Status: approvals.Pending, Created: now}
		b, _ := json.Marshal(r)
		meta[lead.MetaPermission+r.ID] = string(b)
	}
	q := questions.Question{ID: "q-0001", Topic: "staging", Text: "May I run the load test tonight?", Asker: "qa", Status: questions.Pending,
		Answerer: "human/requester", Created: now}
	b, _ := json.Marshal(q)
	meta[lead.QuestionKey(q.ID)] = string(b)
	meta[lead.StatusPrefix(questions.Pending)+q.ID] = ""
	// q-0002 as escalating left it: its route had no escalate_to.
	ended := q
	ended.ID, ended.Status, ended.Text = "q-0002", questions.TimedOut, "Ship on Friday?"
	b, _ = json.Marshal(ended)
	meta[lead.QuestionKey(ended.ID)] = string(b)
	if err := con.st.Commit(&store.Batch{Meta: meta}); err != nil {
		t.Fatal(err)
	}
	listen(t, con, dir)
	c, err := NewClient(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		do   func() (string, error)
		want string
	}{
		{func() (string, error) { return c.Answer("p-2", "approve") }, "approved p-2 (dev: Bash(rm -rf /srv/x)) once"},
		// A dry run says what approving always would write, and decides nothing.
		{func() (string, error) { return c.PlanAlways("p-3", "prefix") },
			"dry run: approving p-3 (dev: Bash(npm install left-pad)) always would add Bash(npm install left-pad:*) to dev's rules in the policy file. Nothing was changed"},
		{func() (string, error) { return c.PlanAlways("p-3", "exact all") },
			"dry run: approving p-3 (dev: Bash(npm install left-pad)) always would add Bash(npm install left-pad) to every agent's rules in the policy file. Nothing was changed"},
		{func() (string, error) { return c.PlanAlways("p-5", "prefix") },
			"dry run: approving p-5 (dev: Bash(npm install 'left-pad')) always would add no rule: the policy allows it already (Bash(npm install left-pad:*) at permissions.yaml:14); it would be approved once. Nothing was changed"},
		{func() (string, error) { return c.Answer("p-3", "always prefix") }, "approved p-3 (dev: Bash(npm install left-pad)) always: Bash(npm install left-pad:*) added to permissions.yaml"},
		// Nothing added (red team 9a, finding 11): approved once, and why, never "always:  added to".
		{func() (string, error) { return c.Answer("p-5", "always prefix") },
			"approved p-5 (dev: Bash(npm install 'left-pad')) once; no rule added: the policy allows it already (Bash(npm install left-pad:*) at permissions.yaml:14)"},
		{func() (string, error) { return c.Answer("p-4", "deny not on main") }, "denied p-4 (dev: Bash(git push --force)); dev is told: not on main"},
		{func() (string, error) { return c.Answer("q-0001", "Yes, after 22:00 UTC.") }, "answered q-0001 (qa, staging: May I run the load test tonight?); the answer goes to qa"},
		{func() (string, error) { return c.Drop("m-3", "asked twice") }, "dropped m-3 (dev's question: ship it?) (asked twice); nothing was typed into anyone"},
		{func() (string, error) { return c.Escalate("q-0001") }, "escalated q-0001 (qa, staging: May I run the load test tonight?); it now waits for human/requester"},
		{func() (string, error) { return c.Escalate("q-0002") }, "escalated q-0002 (qa, staging: Ship on Friday?); it had no one left to go to (escalate_to), so it timed out"},
		{func() (string, error) { return c.Reassign("q-0001", "human/lead") }, "reassigned q-0001 (qa, staging: May I run the load test tonight?) to human/lead"},
		{func() (string, error) { return c.Send("dev", "please also\nwrite a test") }, "sent to dev: please also write a test"},
	} {
		got, err := tc.do()
		if err != nil || got != tc.want {
			t.Errorf("got %q, %v\nwant %q", got, err, tc.want)
		}
	}
	if _, err := c.PlanAlways("p-3", "prefix"); err == nil || !strings.Contains(err.Error(), "p-3 was approved by human") {
		t.Errorf("dry run of a decided request: %v", err)
	}
	if _, err := c.Answer("m-6", "yes"); err == nil || !strings.Contains(err.Error(), "questions waiting for you: q-0001") {
		t.Errorf("answer to m-6: %v", err)
	}
}

// What the human typed into one agent is read back by the human, and by no
// other agent's process (red team 10a, finding 5: a secret typed into qa
// was read from dev's shell with teamlead audit).
func TestHumansWordsWithheldFromOtherAgents(t *testing.T) {
	con, dir := newConsole(t)
	const secret = "sk-HUMAN-SECRET-7777"
	con.commit(t, store.Record{Kind: "human", Subject: "human.send.qa", Agent: "qa", From: "human", To: []string{"qa"}, Body: "export KEY=" + secret})
	con.commit(t, store.Record{Kind: "message", Subject: "route.qa", Agent: "qa", From: "dev", To: []string{"qa"}, Body: "dev's own words"})
	srv := listen(t, con, dir)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), "TEAMLEAD_TEST_DIAL="+srv.Path(), `TEAMLEAD_TEST_REQ={"cmd":"audit"}`)
	out, _ := cmd.CombinedOutput()
	if strings.Contains(string(out), secret) || !strings.Contains(string(out), "withheld") || !strings.Contains(string(out), "dev's own words") {
		t.Errorf("an agent's process read the audit as: %s", out)
	}
	c, err := NewClient(dir)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	if err := c.Audit(store.Query{}, func(r store.Record) error { bodies = append(bodies, r.Body); return nil }); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(bodies, "\n"), secret) {
		t.Errorf("the human's audit lost their own words: %q", bodies)
	}

	r := store.Record{Kind: "answered", Agent: "qa", From: "human", To: []string{"qa"}, Body: secret}
	for _, tc := range []struct {
		who  trust.Caller
		sees bool
	}{
		{trust.Caller{}, true},
		{trust.Caller{Contained: true, Agent: "qa"}, true},
		{trust.Caller{Contained: true, Agent: "dev"}, false},
		{trust.Caller{Contained: true}, false},
	} {
		if got := shownTo(tc.who, r).Body == secret; got != tc.sees {
			t.Errorf("%+v sees the human's answer to qa: %v, want %v", tc.who, got, tc.sees)
		}
	}
}

// whoami names the agent the kernel says the caller belongs to, never
// one the caller names: an agent's process on a node is that agent, the
// human's shell and an agent's process the console cannot name are none.
func TestWhoamiIsTheKernelsWord(t *testing.T) {
	con, dir := newConsole(t)
	srv := listen(t, con, dir)
	if out := string(srv.Door("n1", "dev", []byte(`{"cmd":"whoami","agent":"qa"}`))); !strings.Contains(out, `"agent":"dev"`) || strings.Contains(out, "qa") {
		t.Errorf("whoami from dev's process on a node: %s", out)
	}
	agent, why, err := (&Client{path: srv.Path()}).Me()
	if err != nil || agent != "" || !strings.Contains(why, "not an agent's") {
		t.Errorf("whoami from the human's process: %q %q %v", agent, why, err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), "TEAMLEAD_TEST_DIAL="+srv.Path(), `TEAMLEAD_TEST_REQ={"cmd":"whoami","agent":"dev"}`)
	out, _ := cmd.CombinedOutput()
	if strings.Contains(string(out), `"agent"`) || !strings.Contains(string(out), "descends from the console") {
		t.Errorf("whoami from an agent's process the console cannot name: %s", out)
	}
}
