package engine

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/teamlead/teamlead/internal/fsutil"
	"github.com/teamlead/teamlead/internal/usage"
)

// What each agent spent: Claude Code names its transcript in every hook
// event; the console reads it as it grows (usage.Transcript) and shows the
// sum in the agent list and `teamlead agents`. A CLI whose hooks name no
// transcript is read where its preset's session_file says (findSession:
// Codex's rollouts, Copilot CLI's session events, OpenCode's database);
// one with neither shows nothing.

// spend is one agent's usage, read from its CLI's transcripts.
type spend struct {
	mu   sync.Mutex
	path string            // the transcript being read
	tr   *usage.Transcript // what it held so far
	// kept is the total a CLI keeps itself (OpenCode's database), read
	// whole each time, under path; zero with tr.
	kept usage.Tokens
	done usage.Tokens // earlier transcripts of this run (a new conversation)
	late *time.Timer  // the look after the last hook event (rereadAfter)
	// recorded is how much of the total the audit already has (taskspend.go).
	recorded usage.Tokens
	// prior is what an earlier run of the console recorded of the
	// conversation at priorPath (readmodel.StoredUsageSeen): a resumed
	// conversation's file is read from its start again, and only what it
	// adds is this run's.
	priorPath string
	prior     usage.Tokens
}

// conversation is what the conversation being read used, and what of it
// an earlier run counted (sp.mu held).
func (sp *spend) conversation() (all, counted usage.Tokens) {
	all = sp.kept
	if sp.tr != nil {
		all = all.Add(sp.tr.Total())
	}
	if sp.path != "" && sp.path == sp.priorPath {
		counted = sp.prior
	}
	return all, counted
}

// seen is the conversation being read and all it used so far, for the
// store (the next run's prior).
func (sp *spend) seen() (path string, all usage.Tokens) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	all, _ = sp.conversation()
	return sp.path, all
}

// unrecorded returns what was used since the last call, and counts it as
// recorded.
func (sp *spend) unrecorded() usage.Tokens {
	total := sp.total()
	sp.mu.Lock()
	defer sp.mu.Unlock()
	d := total.Sub(sp.recorded)
	sp.recorded = total
	return d
}

// maxTranscriptRead bounds one read of a transcript: the rest is read at
// the next hook event.
const maxTranscriptRead = 16 << 20

// AgentTranscript takes agent's transcript path from its CLI's hook and
// reads what it added. The path comes from the agent: only a .jsonl file
// in a CLI's own folder under the agent's home is read (~/.claude: Claude
// Code's transcript; ~/.gemini: Gemini CLI's chat), and never through a
// FIFO (fsutil.ReadRegular's open).
func (e *Engine) AgentTranscript(agent, path string) {
	s := e.sinks[agent]
	if s == nil || path == "" || !filepath.IsAbs(path) || !strings.HasSuffix(path, ".jsonl") {
		return
	}
	home, _ := e.agentHome(agent)
	kind := transcriptClaude
	real, err := fsutil.Within(filepath.Join(home, ".claude"), path)
	if err != nil {
		kind = transcriptGemini
		if real, err = fsutil.Within(filepath.Join(home, ".gemini"), path); err != nil {
			return
		}
	}
	go s.spend.read(real, kind)
	s.spend.lookLater(real, kind)
}

// The formats of the files spend reads.
type transcriptKind int

const (
	transcriptClaude  transcriptKind = iota // Claude Code's transcript
	transcriptCodex                         // Codex's session rollout
	transcriptGemini                        // Gemini CLI's chat
	transcriptCopilot                       // Copilot CLI's session events
)

// rereadAfter is how long after the last hook event the transcript is
// looked at once more: the CLI may write a turn's last lines after the
// hook that ended it (Stop), and no hook may come after.
const rereadAfter = 2 * time.Second

// lookLater reads path again rereadAfter after the last call: one timer
// per agent, however many hook events come (one per tool call).
func (sp *spend) lookLater(path string, kind transcriptKind) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.late != nil {
		sp.late.Stop()
	}
	sp.late = time.AfterFunc(rereadAfter, func() { sp.read(path, kind) })
}

// read takes what path added since the last read.
func (sp *spend) read(path string, kind transcriptKind) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if path != sp.path || sp.tr == nil {
		sp.next(path)
		sp.tr = &usage.Transcript{Codex: kind == transcriptCodex, Gemini: kind == transcriptGemini, Copilot: kind == transcriptCopilot}
	}
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.Seek(sp.tr.Offset(), io.SeekStart); err != nil {
		return
	}
	_ = sp.tr.Read(io.LimitReader(f, maxTranscriptRead))
}

// set takes the total a CLI keeps itself for the conversation key.
func (sp *spend) set(key string, t usage.Tokens) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if key != sp.path || sp.tr != nil {
		sp.next(key)
	}
	sp.kept = t
}

// next moves what the conversation being read spent into done, for
// another one (sp.mu held).
func (sp *spend) next(path string) {
	all, counted := sp.conversation()
	sp.done = sp.done.Add(all.Past(counted))
	if sp.path != "" && sp.path == sp.priorPath {
		sp.priorPath = "" // counted once: read again later, it is all this run's
	}
	sp.path, sp.tr, sp.kept = path, nil, usage.Tokens{}
}

// total is the agent's usage so far.
func (sp *spend) total() usage.Tokens {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	all, counted := sp.conversation()
	return sp.done.Add(all.Past(counted))
}

// agentHome is the home folder agent's CLI runs with (its HOME, else the
// console's) and its working folder (else the console's).
func (e *Engine) agentHome(agent string) (home, dir string) {
	home = os.Getenv("HOME")
	for _, a := range e.opts.Team.Agents {
		if a.Name == agent {
			dir = a.Dir
			if h := a.Env["HOME"]; h != "" {
				home = h
			}
		}
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return home, dir
}
