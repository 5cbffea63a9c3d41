package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/teamlead/teamlead/configs"
	"github.com/teamlead/teamlead/internal/detect"
	"github.com/teamlead/teamlead/internal/fakemodel"
)

// dialogScenario is a capture of a CLI's permission dialog: the model
// calls a tool that needs the user's approval; the dialog is captured,
// then answered, once approving and once denying (each a run of its own).
type dialogScenario struct {
	Name   string `json:"scenario"`
	Note   string `json:"note"`
	Prompt string `json:"prompt"`
	// Replies are the model's: the first calls the tool, the second
	// answers the tool's result.
	Replies []fakemodel.Reply `json:"model_replies"`
	// Action is what the dialog asks to do: the command or the file.
	Action string `json:"action"`
	// Prepare fills the project before the CLI starts.
	Prepare func(project string) error `json:"-"`
}

var dialogScenarios = []dialogScenario{
	{
		Name:   "bash",
		Note:   "the model asks to run a destructive shell command",
		Prompt: "Clean the build output.",
		Replies: []fakemodel.Reply{
			{Text: "I'll remove the build directory: its old artifacts break the incremental build, so the whole directory goes.",
				Tool: &fakemodel.ToolCall{Shell: "rm -rf build/", Description: "Remove the build directory"}},
			{Text: "Done."},
		},
		Action:  "rm -rf build/",
		Prepare: buildDir,
	},
	{
		Name:   "bash-long",
		Note:   "a shell command longer than a narrow terminal is wide, so the dialog wraps it",
		Prompt: "Clean every generated file, thoroughly.",
		Replies: []fakemodel.Reply{
			{Text: "I'll remove every generated directory and the stray merge files, then say so.",
				Tool: &fakemodel.ToolCall{Shell: longCommand, Description: "Remove generated directories and stray merge files"}},
			{Text: "Done."},
		},
		Action:  longCommand,
		Prepare: buildDir,
	},
	{
		Name:   "write",
		Note:   "the model asks to create a file",
		Prompt: "Write the plan down in notes/plan.md.",
		Replies: []fakemodel.Reply{
			{Text: "I'll write the plan down.",
				Tool: &fakemodel.ToolCall{File: "notes/plan.md", Content: "# Plan\n\n1. Wire the handler.\n2. Test it.\n"}},
			{Text: "Done."},
		},
		Action: "notes/plan.md",
		Prepare: func(project string) error {
			return os.MkdirAll(filepath.Join(project, "notes"), 0o755)
		},
	},
	{
		Name:   "patch",
		Note:   "the model asks to create a file with Codex's apply_patch, through its shell tool (Codex 0.169.0 declares no file tool)",
		Prompt: "Write the plan down in notes/plan.md.",
		Replies: []fakemodel.Reply{
			{Text: "I'll write the plan down.",
				Tool: &fakemodel.ToolCall{Shell: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes/plan.md\n+# Plan\n+\n+1. Wire the handler.\n+2. Test it.\n*** End Patch\nEOF\n",
					Description: "Write the plan down"}},
			{Text: "Done."},
		},
		Action: "notes/plan.md",
		Prepare: func(project string) error {
			return os.MkdirAll(filepath.Join(project, "notes"), 0o755)
		},
	},
}

// quoteScenario is a reply that quotes a dialog's question in a
// paragraph, with no dialog on screen: a negative fixture.
var quoteScenario = dialogScenario{
	Name:   "quote",
	Note:   "the model's reply quotes a permission question in a paragraph; no dialog is shown",
	Prompt: "What will the installer ask?",
	Replies: []fakemodel.Reply{{Text: "The installer stops before it deletes anything and asks \"Do you want to proceed?\" " +
		"in a paragraph like this one. Allow it only if the build directory holds nothing you need; answer yes to go on."}},
}

// longCommand does not fit in 80 columns.
const longCommand = "rm -rf build/ dist/ coverage/ .cache/tmp && find . -name '*.orig' -delete && echo cleaned the workspace for a fresh build"

// buildDir makes the build/ directory the commands delete.
func buildDir(project string) error {
	for _, d := range []string{"build", "dist"} {
		if err := os.MkdirAll(filepath.Join(project, d), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(project, d, "out.o"), []byte("object\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// answer is one way of answering the dialog.
type answer struct {
	name  string // approve or deny
	key   string // the key to press; empty: the one the preset's detector reads off the dialog
	after string // the fixture suffix of the screen after the key
}

// outcome is what happened after the dialog was answered.
type outcome struct {
	Key string `json:"key"`
	// ToolResult reports whether a request carried the tool call's result
	// back to the model, and Result is that result.
	ToolResult bool                  `json:"tool_result_seen"`
	Result     *fakemodel.ToolResult `json:"tool_result,omitempty"`
	// ResultWith says when the result reached the model: "the next
	// request" (sent on its own, right after the key) or "the next
	// prompt's request" (only once the user typed something more).
	ResultWith string `json:"tool_result_sent_with,omitempty"`
	// Requests are the model server's requests after the key.
	Requests []string `json:"requests_after_key"`
	// Effect is what the tool did to the project, as seen from outside.
	Effect string `json:"effect"`
	// Screen is the fixture holding the screen after the key.
	Screen string `json:"screen"`
}

// detected is what a detector read off a dialog.
type detected struct {
	Preset        string `json:"preset"`
	Tool          string `json:"tool"`
	Action        string `json:"action"`
	Approve       string `json:"approve"`
	ApproveAlways string `json:"approve_always,omitempty"`
	Deny          string `json:"deny"`
}

// dialogMeta is the .json header of a dialog capture.
type dialogMeta struct {
	CLI      string              `json:"cli"`
	Version  string              `json:"version"`
	Cols     int                 `json:"cols"`
	Rows     int                 `json:"rows"`
	TERM     string              `json:"term"`
	Captured time.Time           `json:"captured"`
	Bytes    int                 `json:"bytes"`
	Chunk    int                 `json:"model_chunk_bytes"`
	Delay    string              `json:"model_delta_delay"`
	Env      []string            `json:"extra_env,omitempty"`
	Call     *fakemodel.SentCall `json:"tool_call"`
	// Detected is what the preset's detector read off the dialog.
	Detected *detected `json:"detected,omitempty"`
	Requests []string  `json:"requests_until_dialog"`
	Approve  *outcome  `json:"approve,omitempty"`
	Deny     *outcome  `json:"deny,omitempty"`
	dialogScenario
}

// captureQuote captures the screen of a reply that only quotes a dialog.
func (r run) captureQuote(ds dialogScenario) error {
	r.sc = scenario{Name: ds.Name}
	r.stable = true
	s, err := r.start(ds.Replies, nil)
	if err != nil {
		return err
	}
	defer s.close()
	if _, err := r.waitFor("the input line", r.cli.ready); err != nil {
		return err
	}
	if err := r.typePrompt(s, ds.Prompt); err != nil {
		return err
	}
	tail := "answer yes to go on."
	text, err := r.waitFor("the reply", func(sc string) (bool, error) {
		if s.model.Used() == 0 || !strings.Contains(sc, tail) {
			return false, nil
		}
		return r.cli.ready(sc)
	})
	if err != nil {
		return err
	}
	meta := dialogMeta{CLI: r.cli.name(), Version: r.version, Cols: r.cols, Rows: r.rows, TERM: "xterm-256color",
		Chunk: r.chunk, Delay: r.delay.String(), Env: r.env, dialogScenario: ds,
		Captured: time.Now().UTC().Truncate(time.Second), Requests: describe(s.model.Requests())}
	mb, err := encodeMeta(meta)
	if err != nil {
		return err
	}
	base := filepath.Join(r.out, r.name(""))
	fmt.Printf("%s: -> %s.screen.txt\n", ds.Name, base)
	return writeFiles(base, map[string][]byte{".screen.txt": []byte(text), ".json": mb})
}

// captureDialogs runs each dialog scenario twice, approving and denying.
func (r run) captureDialogs(ds dialogScenario, approveKey, denyKey string, states bool) error {
	ds2, err := detect.ParsePresets(configs.Presets)
	if err != nil {
		return err
	}
	if r.detector = ds2[r.cli.preset()]; r.detector == nil {
		return fmt.Errorf("no preset %s in configs/presets.yaml", r.cli.preset())
	}
	r.sc = scenario{Name: ds.Name}
	r.stable = true
	meta := dialogMeta{CLI: r.cli.name(), Version: r.version, Cols: r.cols, Rows: r.rows, TERM: "xterm-256color",
		Chunk: r.chunk, Delay: r.delay.String(), Env: r.env, dialogScenario: ds}
	for _, a := range []answer{{"approve", approveKey, "approved"}, {"deny", denyKey, "denied"}} {
		work := r.work
		r.work = filepath.Join(work, a.name)
		o, err := r.dialogRun(ds, a, &meta, states && a.name == "approve")
		r.work = work
		if err != nil {
			return fmt.Errorf("%s (%s): %w", ds.Name, a.name, err)
		}
		if a.name == "approve" {
			meta.Approve = o
		} else {
			meta.Deny = o
		}
	}
	mb, err := encodeMeta(meta)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(r.out, r.name("")+".json"), mb, 0o644)
}

// dialogRun is one run of a dialog scenario: start, prompt, (the idle and
// busy screens,) the dialog, the key, what followed.
func (r *run) dialogRun(ds dialogScenario, a answer, meta *dialogMeta, states bool) (*outcome, error) {
	project := filepath.Join(r.work, "project")
	replies := make([]fakemodel.Reply, len(ds.Replies))
	for i, rep := range ds.Replies {
		replies[i] = rep
		if rep.Tool != nil {
			tc := *rep.Tool
			tc.Dir = project
			replies[i].Tool = &tc
		}
	}
	s, err := r.start(replies, ds.Prepare)
	if err != nil {
		return nil, err
	}
	defer s.close()
	model := s.model

	idle, err := r.waitFor("the input line", r.cli.ready)
	if err != nil {
		return nil, err
	}
	if err := r.typePrompt(s, ds.Prompt); err != nil {
		return nil, err
	}
	// Busy: the model is streaming its text (or, if the CLI draws the
	// text only once it is complete, at least working on the reply).
	var busy string
	if states {
		head := replies[0].Text[:min(24, len(replies[0].Text))]
		var asked time.Time
		deadline := r.deadline
		r.deadline = time.Now().Add(15 * time.Second)
		busy, err = r.waitNow("the streaming reply", func(sc string) bool {
			if model.Used() == 0 || !r.cli.busy(sc) {
				return false
			}
			if asked.IsZero() {
				asked = time.Now()
			}
			return strings.Contains(sc, head) || time.Since(asked) > 500*time.Millisecond
		})
		r.deadline = deadline
		if errors.Is(err, errTimeout) {
			fmt.Printf("%s: no busy screen seen (the CLI answered too fast); none saved\n", ds.Name)
			busy = ""
		} else if err != nil {
			return nil, err
		}
	}
	dialog, err := r.waitFor("the permission dialog", func(sc string) (bool, error) {
		return len(model.Calls()) > 0 && r.cli.dialog(sc), nil
	})
	if err != nil {
		return nil, err
	}
	raw, reads := r.recorded()
	calls := model.Calls()
	call := calls[0]
	before := len(model.Requests())
	base := filepath.Join(r.out, r.name(""))
	if a.name == "approve" {
		meta.Captured = time.Now().UTC().Truncate(time.Second)
		meta.Bytes = len(raw)
		meta.Call = &call
		meta.Requests = describe(model.Requests())
		if err := writeFiles(base, map[string][]byte{".bin": raw, ".reads": []byte(reads), ".screen.txt": []byte(dialog)}); err != nil {
			return nil, err
		}
		fmt.Printf("%s: dialog, %d bytes -> %s.screen.txt\n", ds.Name, len(raw), base)
	}
	if states {
		for suffix, text := range map[string]string{"idle": idle, "busy": busy} {
			if text == "" {
				continue
			}
			name := filepath.Join(r.out, strings.TrimSuffix(r.name(""), "-"+ds.Name)+"-"+suffix+".screen.txt")
			if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
				return nil, err
			}
		}
	}

	// The key: the one the preset's detector reads off the dialog, unless
	// given; a dialog the detector does not read stops the capture (the
	// screen is saved above, to fix presets.yaml against).
	key := a.key
	m, ok := r.detector.Check(detect.SplitScreen(dialog))
	if ok && a.name == "approve" {
		meta.Detected = &detected{Preset: r.cli.preset(), Tool: m.Tool, Action: m.Action, Approve: string(m.Approve),
			ApproveAlways: string(m.ApproveAlways), Deny: string(m.Deny)}
	}
	if key == "" {
		if !ok {
			return nil, fmt.Errorf("the %s preset's detector does not read this dialog (fix configs/presets.yaml, or give -%s):\n%s", r.cli.preset(), a.name, dialog)
		}
		key = string(m.Approve)
		if a.name == "deny" {
			key = string(m.Deny)
		}
	}
	if _, err := io.WriteString(s.master, key); err != nil {
		return nil, err
	}
	o := &outcome{Key: key, Screen: filepath.Base(base) + "-" + a.after + ".screen.txt"}
	seen := func() bool {
		tr, ok := model.Result(call.ID)
		if ok {
			o.ToolResult, o.Result = true, &tr
		}
		return ok
	}
	// Wait for the CLI to settle: after an approval, until the result went
	// back and the model's next reply is drawn; after a denial, until the
	// input line is back.
	after, err := r.waitFor("the screen after the key", func(sc string) (bool, error) {
		if r.cli.dialog(sc) {
			return false, nil
		}
		if a.name == "approve" && !seen() {
			return false, nil
		}
		return r.cli.ready(sc)
	})
	if err != nil {
		return nil, err
	}
	if seen() {
		o.ResultWith = "the next request"
	} else {
		// Nothing more went to the model on its own within a while?
		time.Sleep(3 * time.Second)
		if !seen() {
			// Then the next prompt carries what the CLI told the model.
			if err := r.typePrompt(s, "Go on."); err != nil {
				return nil, err
			}
			used := model.Used()
			if _, err := r.waitFor("the reply to the next prompt", func(sc string) (bool, error) {
				if model.Used() <= used {
					return false, nil
				}
				return r.cli.ready(sc)
			}); err != nil && !errors.Is(err, errTimeout) {
				return nil, err
			}
			if seen() {
				o.ResultWith = "the next prompt's request"
			}
		} else {
			o.ResultWith = "the next request"
		}
	}
	o.Requests = describe(model.Requests()[before:])
	o.Effect = effect(ds, project)
	if err := os.WriteFile(filepath.Join(r.out, o.Screen), []byte(after), 0o644); err != nil {
		return nil, err
	}
	fmt.Printf("%s: %s (%q): tool result seen %v; %s\n", ds.Name, a.name, key, o.ToolResult, o.Effect)
	return o, nil
}

// effect describes the project after the tool call.
func effect(ds dialogScenario, project string) string {
	switch ds.Name {
	case "write", "patch":
		if _, err := os.Stat(filepath.Join(project, "notes", "plan.md")); err == nil {
			return "notes/plan.md written"
		}
		return "notes/plan.md not written"
	default:
		if _, err := os.Stat(filepath.Join(project, "build")); err == nil {
			return "build/ still there"
		}
		return "build/ removed"
	}
}

// waitNow waits until cond holds, without waiting for the output to be
// quiet (a busy screen never is).
func (r *run) waitNow(what string, cond func(screen string) bool) (string, error) {
	quiet := r.quiet
	r.quiet = 0
	defer func() { r.quiet = quiet }()
	return r.waitFor(what, func(s string) (bool, error) { return cond(s), nil })
}

// looksLikeDialog is the generic test for a dialog on screen.
func looksLikeDialog(s string) bool { return detect.LooksLikeDialog(detect.SplitScreen(s)) }
