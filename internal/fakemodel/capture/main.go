// Command capture runs a real agent CLI in a PTY against the scripted model
// server of internal/fakemodel, has the model reply with text holding a
// [ROUTE] envelope, and records every byte the CLI writes to its terminal,
// raw, as a fixture for the stream parser's tests
// (internal/protocol/realcli_test.go).
//
//	go run ./internal/fakemodel/capture -cli claude \
//	    -bin /work/.cache/clis/claude/node_modules/.bin/claude
//	go run ./internal/fakemodel/capture -cli claude -bin … \
//	    -tag classic -env CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN=1
//	go run ./internal/fakemodel/capture -cli codex -bin …/codex
//	go run ./internal/fakemodel/capture -cli gemini -bin …/gemini -chunk 64
//
// (from the repository root; internal/protocol/testdata/real/README.md has
// the installs and the full commands.)
//
// For each scenario it writes, in -out:
//
//	<cli>-<version>[-<tag>]-<scenario>.bin the raw PTY output
//	<cli>-<version>[-<tag>]-<scenario>.reads one line per read: its end offset and nanoseconds since the first read
//	<cli>-<version>-<scenario>.screen.txt  the final screen, as text
//	<cli>-<version>-<scenario>.json        how it was captured: CLI, version,
//	                                       terminal size, prompt, model reply
//
// With -set dialog it captures permission dialogs instead, for the
// detectors' tests (internal/detect/testdata, README.md there): the model
// asks to run a command or write a file; the dialog is saved, answered
// with the keys the preset's detector reads off it (or -approve, -deny),
// once approving and once denying, and the screen after each is saved
// with what reached the model server; plus the idle and busy screens and
// a reply that only quotes a dialog's question.
//
// The CLI runs with a private HOME and a clean environment (no variable of
// the caller's is passed on but PATH), offline, on loopback. Every wait is
// for something on the screen (the input line, the typed prompt, the end
// of the reply) followed by a moment without output, with a deadline; a
// start-up dialog the home should have suppressed stops the capture rather
// than being answered blindly.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/teamlead/teamlead/internal/detect"
	"github.com/teamlead/teamlead/internal/fakemodel"
	"github.com/teamlead/teamlead/internal/vt"
)

// scenario is one capture: what is typed, and what the model replies.
type scenario struct {
	Name   string `json:"scenario"`
	Note   string `json:"note"`
	Prompt string `json:"prompt"`
	Reply  string `json:"model_reply"`
	// Done is text whose appearance on screen means the reply is drawn.
	Done string `json:"-"`
}

var scenarios = []scenario{
	{
		Name:   "route",
		Note:   "a reply with a multi-line [ROUTE] envelope whose lines all fit in the terminal width",
		Prompt: "Ask the architect which transport to use.",
		Reply: "I'll ask the architect about the transport.\n\n[ROUTE]\nto: architect\ntype: question\ntask: T-12\n" +
			"body: Which transport should I use for server-to-client updates?\n[/ROUTE]",
		Done: "[/ROUTE]",
	},
	{
		Name:   "wrap",
		Note:   "a multi-line envelope whose body line is longer than the terminal width, so the CLI wraps it",
		Prompt: "Ask the architect about the transport, with the full context.",
		Reply: "I'll ask the architect about the transport.\n\n[ROUTE]\nto: architect\ntype: question\ntask: T-12\n" +
			"body: The spec says \"real-time updates\" but not the transport. Which one should I use for 1000+ concurrent users, " +
			"server-to-client only? The load balancer in front of us terminates TLS and has a 60 second idle timeout, " +
			"and some customers sit behind corporate proxies that buffer responses.\n[/ROUTE]",
		Done: "[/ROUTE]",
	},
	{
		Name:   "oneline",
		Note:   "a reply with the one-line form of the envelope",
		Prompt: "Tell the architect, in one line, that the transport is decided.",
		Reply:  "Done.\n\n[ROUTE] to: architect type: status task: T-12 body: SSE chosen for server-to-client updates. [/ROUTE]",
		Done:   "[/ROUTE]",
	},
	{
		Name:   "scroll",
		Note:   "an envelope followed by more lines than the terminal has rows, so the block scrolls up while the reply streams",
		Prompt: "Ask the architect which transport to use, then list your plan.",
		Reply: "I'll ask the architect about the transport.\n\n[ROUTE]\nto: architect\ntype: question\ntask: T-12\n" +
			"body: Which transport should I use for server-to-client updates?\n[/ROUTE]\n\nWhile I wait, my plan:\n\n" +
			planLines(45) + "\nThat is the whole plan.",
		Done: "That is the whole plan.",
	},
}

// planLines is n numbered lines of filler.
func planLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d. Step %d of the plan: wire the handler, then test it.\n", i, i)
	}
	return b.String()
}

// cli knows how to run one agent CLI.
type cli interface {
	// name is the fixture name prefix, e.g. "claude-code".
	name() string
	// setup prepares home and project for a run against baseURL and
	// returns the environment (beyond PATH and TERM; HOME included) and
	// arguments.
	setup(home, project, baseURL string) (env, args []string, err error)
	// ready reports the CLI waits for input on this screen; a non-nil
	// error is a dialog the setup should have prevented.
	ready(screen string) (bool, error)
	// submit is what ends a typed prompt.
	submit() string
	// busy reports the CLI shows it is working on a reply.
	busy(screen string) bool
	// dialog reports the CLI shows its permission dialog.
	dialog(screen string) bool
	// preset is the name of the CLI's preset in configs/presets.yaml.
	preset() string
}

func main() {
	var (
		which  = flag.String("cli", "claude", "the CLI to run: claude, codex, gemini, copilot or opencode")
		bin    = flag.String("bin", "", "the CLI's executable")
		out    = flag.String("out", "internal/protocol/testdata/real", "directory for the fixtures")
		only   = flag.String("only", "", "run only the scenarios of this comma-separated list")
		cols   = flag.Int("cols", 120, "terminal columns")
		rows   = flag.Int("rows", 40, "terminal rows")
		work   = flag.String("work", "", "directory for the private homes and request logs (default: a new temporary one, kept)")
		limit  = flag.Duration("timeout", 90*time.Second, "deadline of one scenario")
		quiet  = flag.Duration("quiet", 1500*time.Millisecond, "how long the screen must stay unchanged after a wait's condition holds")
		delay  = flag.Duration("delay", 20*time.Millisecond, "pause between the model's streamed deltas")
		chunk  = flag.Int("chunk", 16, "most bytes of text in one streamed delta")
		verbos = flag.Bool("v", false, "print the screen at each step")
		tag    = flag.String("tag", "", "a word put in the fixture names after the version, for a variant run (with -env)")
		set    = flag.String("set", "route", "which scenarios: route (envelopes in replies, for the parsers), dialog (permission dialogs, idle and busy screens, for the detectors) or input (typed text waiting in the input box and submitted, for the submit check)")
		appr   = flag.String("approve", "", "the key that approves the permission dialog (default: what the preset's detector in configs/presets.yaml reads off it)")
		deny   = flag.String("deny", "", "the key that denies the permission dialog (default: what the preset's detector reads off it)")
		extra  envList
	)
	flag.Var(&extra, "env", "KEY=VALUE added to the CLI's environment (repeatable), e.g. CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN=1")
	flag.Parse()
	if *bin == "" {
		fatal(errors.New("-bin is required"))
	}
	var c cli
	switch *which {
	case "claude":
		c = claude{}
	case "codex":
		c = codex{}
	case "gemini":
		c = gemini{}
	case "copilot":
		c = copilot{}
	case "opencode":
		c = opencode{}
	default:
		fatal(fmt.Errorf("unknown -cli %q", *which))
	}
	abs, err := filepath.Abs(*bin)
	if err != nil {
		fatal(err)
	}
	version, err := versionOf(abs)
	if err != nil {
		fatal(err)
	}
	if *work == "" {
		if *work, err = os.MkdirTemp("", "teamlead-capture-"); err != nil {
			fatal(err)
		}
	}
	outSet := false
	flag.Visit(func(f *flag.Flag) { outSet = outSet || f.Name == "out" })
	if (*set == "dialog" || *set == "input") && !outSet {
		*out = "internal/detect/testdata"
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fatal(err)
	}
	fmt.Printf("%s %s; work dir %s\n", c.name(), version, *work)
	failed := false
	if *set == "input" {
		r := run{cli: c, bin: abs, version: version, cols: *cols, rows: *rows, out: *out,
			tag: *tag, env: extra,
			work: filepath.Join(*work, *tag+"input"), limit: *limit, quiet: *quiet, delay: *delay, chunk: *chunk, verbose: *verbos}
		if err := r.captureInput(); err != nil {
			fatal(err)
		}
		return
	}
	if *set == "dialog" {
		first := true
		for _, ds := range dialogScenarios {
			if *only != "" && !contains(strings.Split(*only, ","), ds.Name) {
				continue
			}
			r := run{cli: c, bin: abs, version: version, cols: *cols, rows: *rows, out: *out,
				tag: *tag, env: extra,
				work: filepath.Join(*work, *tag+ds.Name), limit: *limit, quiet: *quiet, delay: *delay, chunk: *chunk, verbose: *verbos}
			if err := r.captureDialogs(ds, *appr, *deny, first); err != nil {
				fmt.Fprintf(os.Stderr, "%v\n", err)
				failed = true
			}
			first = false
		}
		if *only == "" || contains(strings.Split(*only, ","), quoteScenario.Name) {
			r := run{cli: c, bin: abs, version: version, cols: *cols, rows: *rows, out: *out,
				tag: *tag, env: extra,
				work: filepath.Join(*work, *tag+quoteScenario.Name), limit: *limit, quiet: *quiet, delay: *delay, chunk: *chunk, verbose: *verbos}
			if err := r.captureQuote(quoteScenario); err != nil {
				fmt.Fprintf(os.Stderr, "%v\n", err)
				failed = true
			}
		}
		if failed {
			os.Exit(1)
		}
		return
	}
	for _, sc := range scenarios {
		if *only != "" && !contains(strings.Split(*only, ","), sc.Name) {
			continue
		}
		r := run{cli: c, bin: abs, version: version, sc: sc, cols: *cols, rows: *rows, out: *out,
			tag: *tag, env: extra,
			work: filepath.Join(*work, *tag+sc.Name), limit: *limit, quiet: *quiet, delay: *delay, chunk: *chunk, verbose: *verbos}
		if err := r.capture(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", sc.Name, err)
			failed = true
			continue
		}
	}
	if failed {
		os.Exit(1)
	}
}

type envList []string

func (e *envList) String() string { return strings.Join(*e, " ") }
func (e *envList) Set(v string) error {
	if !strings.Contains(v, "=") {
		return fmt.Errorf("%q is not KEY=VALUE", v)
	}
	*e = append(*e, v)
	return nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "capture:", err)
	os.Exit(2)
}

// versionOf runs `bin --version` and returns the version number in it.
func versionOf(bin string) (string, error) {
	cmd := exec.Command(bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir()}
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", bin, err)
	}
	v := strings.TrimRight(regexp.MustCompile(`\d+\.\d+\.\d+[-.\w]*`).FindString(string(b)), ".") // "GitHub Copilot CLI 1.0.102."
	if v == "" {
		return "", fmt.Errorf("%s --version printed %q", bin, b)
	}
	return v, nil
}

// run is one scenario's capture.
type run struct {
	cli          cli
	bin, version string
	tag          string
	env          []string
	sc           scenario
	cols, rows   int
	out, work    string
	limit, quiet time.Duration
	delay        time.Duration
	chunk        int
	verbose      bool
	// detector is the CLI preset's, which reads the keys off a dialog.
	detector *detect.Detector
	// stable makes a wait's quiet mean "the condition held all along"
	// rather than "no output".
	stable   bool
	deadline time.Time
	term     *terminal
}

// terminal is the master side of the CLI's PTY: everything read from it is
// recorded and fed to a screen.
type terminal struct {
	master *os.File

	mu      sync.Mutex
	rec     bytes.Buffer
	scr     *vt.Terminal
	changed time.Time // last time output arrived
	reads   []string  // "<end offset> <nanoseconds since the first read>" per read, for replay with real timing
	first   time.Time
	err     error // the read error that ended the output
	wake    chan struct{}
}

func (t *terminal) read() {
	buf := make([]byte, 32<<10)
	for {
		n, err := t.master.Read(buf)
		t.mu.Lock()
		if n > 0 {
			now := time.Now()
			if t.first.IsZero() {
				t.first = now
			}
			t.rec.Write(buf[:n])
			t.scr.Write(buf[:n])
			t.changed = now
			t.reads = append(t.reads, fmt.Sprintf("%d %d", t.rec.Len(), now.Sub(t.first).Nanoseconds()))
		}
		if err != nil {
			t.err = err
		}
		t.mu.Unlock()
		select {
		case t.wake <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// snapshot returns the screen text, the bytes recorded so far, whether
// bracketed paste is on, and how long the output has been quiet.
func (t *terminal) snapshot() (text string, n int, bracketed bool, quiet time.Duration, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.scr.ScreenText(), t.rec.Len(), t.scr.Modes().BracketedPaste, time.Since(t.changed), t.err
}

// errTimeout is a wait that reached the deadline.
var errTimeout = errors.New("timed out")

// waitFor waits until cond holds for the screen and the output has then
// been quiet for r.quiet, or the deadline.
func (r *run) waitFor(what string, cond func(screen string) (bool, error)) (string, error) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var since time.Time // when cond started to hold
	for {
		text, _, _, quiet, rerr := r.term.snapshot()
		ok, err := cond(text)
		if r.stable {
			// Quiet means cond has held all along (a CLI may never stop
			// writing: Claude Code blinks the dot of a pending tool call).
			if !ok {
				since = time.Time{}
			} else if since.IsZero() {
				since = time.Now()
			}
			quiet = time.Since(since)
		}
		if err != nil {
			return text, fmt.Errorf("waiting for %s: %v\n%s", what, err, text)
		}
		if ok && quiet >= r.quiet {
			if r.verbose {
				fmt.Printf("--- %s: %s\n%s", r.sc.Name, what, text)
			}
			return text, nil
		}
		if rerr != nil {
			return text, fmt.Errorf("waiting for %s: the CLI's output ended (%v)\n%s", what, rerr, text)
		}
		if time.Now().After(r.deadline) {
			return text, fmt.Errorf("waiting for %s: %w\n%s", what, errTimeout, text)
		}
		select {
		case <-r.term.wake:
		case <-tick.C:
		}
	}
}

// session is one running CLI against its own model server.
type session struct {
	model   *fakemodel.Server
	cmd     *exec.Cmd
	master  *os.File
	home    string
	project string
}

// start prepares a fresh home and project under r.work, starts a model
// server answering replies and the CLI in a PTY, and waits for its input
// line. prepare, when not nil, fills the project first.
func (r *run) start(replies []fakemodel.Reply, prepare func(project string) error) (*session, error) {
	r.deadline = time.Now().Add(r.limit)
	home := filepath.Join(r.work, "home")
	project := filepath.Join(r.work, "project")
	if err := os.RemoveAll(r.work); err != nil {
		return nil, err
	}
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if prepare != nil {
		if err := prepare(project); err != nil {
			return nil, err
		}
	}
	model, err := fakemodel.Start(fakemodel.Config{Replies: replies, Chunk: r.chunk, Delay: r.delay,
		LogPath: filepath.Join(r.work, "requests.jsonl")})
	if err != nil {
		return nil, err
	}
	env, args, err := r.cli.setup(home, project, model.URL())
	if err != nil {
		model.Close()
		return nil, err
	}
	cmd := exec.Command(r.bin, args...)
	cmd.Dir = project
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "TERM=xterm-256color",
		"LANG=C.UTF-8", "USER=dev", "SHELL=/bin/bash"}, env...)
	cmd.Env = append(cmd.Env, r.env...)
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(r.cols), Rows: uint16(r.rows)})
	if err != nil {
		model.Close()
		return nil, err
	}
	r.term = &terminal{master: master, scr: vt.New(r.cols, r.rows, vt.Options{Scrollback: -1}), changed: time.Now(), wake: make(chan struct{}, 1)}
	go r.term.read()
	return &session{model: model, cmd: cmd, master: master, home: home, project: project}, nil
}

// close stops the CLI (and its daemons) and the model server.
func (s *session) close() {
	stop(s.cmd, s.master, s.home)
	s.model.Close()
}

// typePrompt types text as the user would (one bracketed paste when the
// CLI enabled it), waits until it shows and submits it.
func (r *run) typePrompt(s *session, text string) error {
	_, _, bracketed, _, _ := r.term.snapshot()
	typed := text
	if bracketed {
		typed = "\x1b[200~" + typed + "\x1b[201~"
	}
	if _, err := io.WriteString(s.master, typed); err != nil {
		return err
	}
	// The prompt's end is on screen (a long one may wrap): submit.
	tail := text[max(0, len(text)-20):]
	if _, err := r.waitFor("the typed prompt", func(s string) (bool, error) { return strings.Contains(s, tail), nil }); err != nil {
		return err
	}
	_, err := io.WriteString(s.master, r.cli.submit())
	return err
}

// recorded returns the bytes read so far and their read timing.
func (r *run) recorded() (raw []byte, reads string) {
	r.term.mu.Lock()
	defer r.term.mu.Unlock()
	return append([]byte(nil), r.term.rec.Bytes()...), strings.Join(r.term.reads, "\n") + "\n"
}

// name is the fixture name of this run's scenario (with suffix, when not
// empty, appended).
func (r *run) name(suffix string) string {
	parts := []string{r.cli.name(), r.version}
	if r.tag != "" {
		parts = append(parts, r.tag)
	}
	parts = append(parts, r.sc.Name)
	if suffix != "" {
		parts = append(parts, suffix)
	}
	return strings.Join(parts, "-")
}

// describe lists the requests the model server received, one line each.
func describe(reqs []fakemodel.Request) []string {
	var out []string
	for _, q := range reqs {
		desc := q.Method + " " + q.Path
		if q.Query != "" {
			desc += "?" + q.Query
		}
		if q.Stream {
			desc += " (streamed)"
		}
		for _, tr := range q.ToolResults {
			desc += fmt.Sprintf(" [carries tool result %s is_error=%v: %q]", tr.ID, tr.IsError, clip(tr.Output, 200))
		}
		if q.Script >= 0 {
			desc += fmt.Sprintf(" -> script reply %d", q.Script)
		} else if q.Reply != "" {
			desc += fmt.Sprintf(" -> %q", q.Reply)
		}
		if c := q.ToolCall; c != nil {
			desc += fmt.Sprintf(" calling %s %s", c.Name, c.Arguments())
		}
		out = append(out, desc)
	}
	return out
}

// clip shortens s to n bytes at most (at a rune boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// writeFiles writes base+ext for each file.
func writeFiles(base string, files map[string][]byte) error {
	for ext, data := range files {
		if err := os.WriteFile(base+ext, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// encodeMeta is v as indented JSON, HTML left unescaped, ending in a newline.
func encodeMeta(v any) ([]byte, error) {
	var mbuf bytes.Buffer
	enc := json.NewEncoder(&mbuf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return mbuf.Bytes(), nil
}

func (r *run) capture() error {
	s, err := r.start([]fakemodel.Reply{{Text: r.sc.Reply}}, nil)
	if err != nil {
		return err
	}
	defer s.close()
	model := s.model

	if _, err := r.waitFor("the input line", r.cli.ready); err != nil {
		return err
	}
	_, _, bracketed, _, _ := r.term.snapshot()
	if err := r.typePrompt(s, r.sc.Prompt); err != nil {
		return err
	}
	// The reply is drawn: its closing text is on screen, the model has
	// answered the conversation request, and the CLI waits for input again.
	text, err := r.waitFor("the reply", func(s string) (bool, error) {
		if model.Used() == 0 || !strings.Contains(s, r.sc.Done) {
			return false, nil
		}
		return r.cli.ready(s)
	})
	if err != nil {
		return err
	}
	raw, reads := r.recorded()

	base := filepath.Join(r.out, r.name(""))
	meta := struct {
		CLI       string    `json:"cli"`
		Version   string    `json:"version"`
		Cols      int       `json:"cols"`
		Rows      int       `json:"rows"`
		TERM      string    `json:"term"`
		Bracketed bool      `json:"bracketed_paste"`
		Captured  time.Time `json:"captured"`
		Bytes     int       `json:"bytes"`
		Chunk     int       `json:"model_chunk_bytes"`
		Delay     string    `json:"model_delta_delay"`
		Env       []string  `json:"extra_env,omitempty"`
		Requests  []string  `json:"requests"`
		scenario
	}{CLI: r.cli.name(), Version: r.version, Cols: r.cols, Rows: r.rows, TERM: "xterm-256color", Bracketed: bracketed, Env: r.env,
		Chunk: r.chunk, Delay: r.delay.String(),
		Captured: time.Now().UTC().Truncate(time.Second), Bytes: len(raw), scenario: r.sc,
		Requests: describe(model.Requests())}
	mb, err := encodeMeta(meta)
	if err != nil {
		return err
	}
	if err := writeFiles(base, map[string][]byte{".bin": raw, ".reads": []byte(reads), ".screen.txt": []byte(text), ".json": mb}); err != nil {
		return err
	}
	fmt.Printf("%s: %d bytes -> %s.bin\n", r.sc.Name, len(raw), base)
	return nil
}

// stop ends the CLI and everything it started in its session (pty.Start
// makes it a session and process group leader): SIGTERM, then SIGKILL.
// A daemon that left the session (Codex's app-server calls setsid) is
// found by the private HOME in its environment and killed too.
func stop(cmd *exec.Cmd, master *os.File, home string) {
	pid := cmd.Process.Pid
	syscall.Kill(-pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		syscall.Kill(-pid, syscall.SIGKILL)
		<-done
	}
	// Stragglers of the group (a daemon) get SIGKILL too.
	syscall.Kill(-pid, syscall.SIGKILL)
	master.Close()
	// A daemon that left the session, found by the private HOME.
	for _, p := range fakemodel.KillHome(home) {
		fmt.Printf("killed straggler %d (HOME=%s)\n", p, home)
	}
}
