package engine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/fsutil"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/textsafe"
	"github.com/teamlead/teamlead/internal/usage"
)

// Resume: a CLI whose preset says how to resume a conversation (resume:
// ["--resume", "{session}"]) is started back into its last one after the
// console or the agent stopped, crashed or the machine rebooted. The
// session id arrives with the CLI's hooks (Claude Code's session_id); the
// console keeps the latest per agent in the store.

// sessionMetaPrefix keys each agent's last conversation in the store.
const sessionMetaPrefix = "session/"

// sessionRE is what a session id may be: it goes into the CLI's command
// line, and comes from the agent's own hook (which it could forge): an id
// like "--dangerously-skip-permissions" must never become an option.
var sessionRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// resumeFailWindow: a resumed process that fails within it is taken to
// have refused the conversation (gone, another HOME), and the next start
// is a fresh one, instead of a restart loop on the same id.
const resumeFailWindow = 10 * time.Second

// session is one agent's conversation as far as the console knows it.
type session struct {
	mu        sync.Mutex
	id        string
	resumedAt time.Time   // when a process was last started into id
	late      *time.Timer // findSessionSoon's second look
}

// loadSessions reads each agent's last conversation, or forgets them all
// (Options.Fresh).
func (e *Engine) loadSessions() error {
	for _, a := range e.opts.Team.Agents {
		s := e.sinks[a.Name]
		if s == nil || len(e.opts.Team.Resolved[a.Name].Resume) == 0 {
			continue
		}
		if e.opts.Fresh {
			continue
		}
		id, ok, err := e.store.Meta(sessionMetaPrefix + a.Name)
		if err != nil {
			return err
		}
		if ok && sessionRE.MatchString(id) {
			s.session.id = id
		}
	}
	return nil
}

// startArgs are the resume arguments for the agent's next process: none
// without a preset that resumes or a known conversation.
func (e *Engine) startArgs(name string) []string {
	s := e.sinks[name]
	resume := e.opts.Team.Resolved[name].Resume
	if s == nil || len(resume) == 0 {
		return nil
	}
	s.session.mu.Lock()
	id := s.session.id
	if id != "" {
		s.session.resumedAt = time.Now()
	}
	s.session.mu.Unlock()
	if id == "" {
		return nil
	}
	args := make([]string, len(resume))
	for i, r := range resume {
		args[i] = strings.ReplaceAll(r, "{session}", id)
	}
	go e.record(wire.Record{Kind: wire.KindSession, Subject: "agent." + name + ".session", Agent: name, From: "team-lead",
		Body: "resumed conversation " + id, Fields: map[string]string{"session": id, "resumed": "true"}}, nil, nil)
	return args
}

// AgentSession records agent's conversation id, as its CLI's hook said.
func (e *Engine) AgentSession(agent, id string) {
	s := e.sinks[agent]
	if s == nil || id == "" {
		return
	}
	if !sessionRE.MatchString(id) {
		e.Warn(fmt.Sprintf("agent %s's hook gave the conversation id %q, which is not one: it is not kept (its next start is a new conversation)", agent, textsafe.Line(id)))
		return
	}
	s.session.mu.Lock()
	same := s.session.id == id
	s.session.id = id
	s.session.mu.Unlock()
	if same {
		return
	}
	e.record(wire.Record{Kind: wire.KindSession, Subject: "agent." + agent + ".session", Agent: agent, From: "team-lead",
		Body: "conversation " + id, Fields: map[string]string{"session": id}}, map[string]string{sessionMetaPrefix + agent: id}, nil)
}

// resumeEnded forgets a conversation the CLI refused: a resumed process
// that failed at once.
func (e *Engine) resumeEnded(agent string, exitCode int, now time.Time) {
	s := e.sinks[agent]
	if s == nil {
		return
	}
	s.session.mu.Lock()
	at, id := s.session.resumedAt, s.session.id
	failed := !at.IsZero() && now.Sub(at) < resumeFailWindow && exitCode != 0
	s.session.resumedAt = time.Time{}
	if failed {
		s.session.id = ""
	}
	s.session.mu.Unlock()
	if failed {
		go e.record(wire.Record{Kind: wire.KindSession, Subject: "agent." + agent + ".session", Agent: agent, From: "team-lead",
			Body:   fmt.Sprintf("conversation %s could not be resumed (exit %d): the next start is a new conversation", id, exitCode),
			Fields: map[string]string{"session": id, "resume_failed": "true"}}, nil, []string{sessionMetaPrefix + agent})
	}
}

// record commits one record with meta changes, from any goroutine.
func (e *Engine) record(r wire.Record, meta map[string]string, metaDel []string) {
	_ = e.do(func(now time.Time) (lead.Output, error) {
		r.Time = now
		return lead.Output{Records: []wire.Record{r}, Meta: meta, MetaDel: metaDel}, nil
	})
}

// findSession looks for the conversation of an agent whose CLI records it
// in files (Preset.SessionFile: Codex's rollouts, Copilot CLI's session
// events, OpenCode's database) rather than naming it to a hook: the newest
// file written since its process started whose first line names the
// agent's folder (or OpenCode's newest conversation there). It runs when
// the agent's screen says it is idle (a turn ended) and when its process
// ends; what the conversation spent is read there too (SessionFile.Tokens).
func (e *Engine) findSession(agent string) {
	s := e.sinks[agent]
	sf := e.opts.Team.Resolved[agent].SessionFile
	if s == nil || sf == nil || sf.Glob == "" || (len(e.opts.Team.Resolved[agent].Resume) == 0 && sf.Tokens == "") {
		return
	}
	home, dir := e.agentHome(agent)
	dir = realDir(dir)
	var since time.Time
	if a := s.runner(); a != nil {
		since = a.Info().StartedAt.Add(-2 * time.Second)
	}
	files, _ := filepath.Glob(filepath.Join(home, sf.Glob))
	if sf.Format == config.SessionOpenCodeDB {
		e.findOpenCodeSession(agent, files, dir, since, sf.Tokens == config.TokensOpenCode)
		return
	}
	type found struct {
		id, path string
		mod      time.Time
	}
	var all []found
	for _, f := range files {
		fi, err := os.Lstat(f)
		if err != nil || !fi.Mode().IsRegular() || fi.ModTime().Before(since) {
			continue
		}
		id, cwd := sessionFileFields(f, sf.ID, sf.Cwd)
		if id == "" || cwd == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(cwd); err == nil {
			cwd = r
		}
		if cwd == dir {
			all = append(all, found{id: id, path: f, mod: fi.ModTime()})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod.After(all[j].mod) })
	var best found
	for _, c := range all {
		held, known := holdsSession(s.runner(), c.path, files)
		if !known {
			best = c // the newest: who wrote it cannot be told here
			break
		}
		if held {
			best = c
			break
		}
	}
	if best.id != "" {
		if len(e.opts.Team.Resolved[agent].Resume) > 0 {
			e.AgentSession(agent, best.id)
		}
		switch sf.Tokens {
		case config.TokensCodex:
			s.spend.read(best.path, transcriptCodex) // the rollout's token counts
		case config.TokensCopilot:
			s.spend.read(best.path, transcriptCopilot) // the session's usage records
		}
	}
}

// holdsSession reports whether the agent's processes hold the session
// file path open, or a file in its folder that is no session file of
// files (Copilot CLI holds session-state/<id>/inuse.<pid>.hold, Codex its
// rollout itself). The files are in the home every agent shares: another
// agent wrote a rollout naming this agent's folder, with "user" turns of
// its making, and the console resumed it as this agent's conversation
// (red team 19b, finding 4). A file none of its processes holds is not
// taken (the conversation found before stays); known is false where the
// kernel cannot be asked (a remote agent, not Linux).
func holdsSession(r runner, path string, files []string) (held, known bool) {
	h, ok := r.(interface {
		HoldsOpen(match func(string) bool) (bool, bool)
	})
	if !ok || r == nil {
		return false, false
	}
	dir := filepath.Dir(path)
	return h.HoldsOpen(func(open string) bool {
		return open == path || filepath.Dir(open) == dir && !slices.Contains(files, open)
	})
}

// findOpenCodeSession finds an OpenCode agent's conversation in OpenCode's
// database: the newest top one (not a subagent's, not archived) of the
// agent's folder written since its process started. With tokens, what it
// spent, its subagents' conversations included, is the agent's.
func (e *Engine) findOpenCodeSession(agent string, files []string, dir string, since time.Time, tokens bool) {
	s := e.sinks[agent]
	for _, f := range files {
		fi, err := os.Lstat(f)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		sessions, err := usage.OpenCodeSessions(f)
		if err != nil {
			continue
		}
		var best *usage.OpenCodeSession
		for i, ss := range sessions {
			if ss.Parent != "" || ss.Archived || ss.Updated.Before(since) || (best != nil && !ss.Updated.After(best.Updated)) {
				continue
			}
			cwd := ss.Dir
			if r, err := filepath.EvalSymlinks(cwd); err == nil {
				cwd = r
			}
			if cwd == dir {
				best = &sessions[i]
			}
		}
		if best == nil {
			continue
		}
		if len(e.opts.Team.Resolved[agent].Resume) > 0 {
			e.AgentSession(agent, best.ID)
		}
		if tokens {
			s.spend.set(f+"#"+best.ID, usage.OpenCodeTotal(sessions, best.ID))
		}
		return
	}
}

// findSessionSoon runs findSession now and once more rereadAfter later:
// a CLI may write a turn's last record (OpenCode its totals) after its
// screen said idle, and nothing may follow. One timer per agent.
func (e *Engine) findSessionSoon(agent string) {
	s := e.sinks[agent]
	if s == nil || e.opts.Team.Resolved[agent].SessionFile == nil {
		return
	}
	go e.findSession(agent)
	s.session.mu.Lock()
	defer s.session.mu.Unlock()
	if s.session.late != nil {
		s.session.late.Stop()
	}
	s.session.late = time.AfterFunc(rereadAfter, func() { e.findSession(agent) })
}

// sessionFileFields reads the first line of a session file (at most 1 MiB;
// never through a FIFO) and the strings at two dotted paths in it.
func sessionFileFields(path, idPath, cwdPath string) (id, cwd string) {
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	line, _ := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64<<10).ReadBytes('\n')
	var doc any
	if json.Unmarshal(line, &doc) != nil {
		return "", ""
	}
	return dotted(doc, idPath), dotted(doc, cwdPath)
}

// dotted is the string at a dotted path ("payload.id") in a JSON value.
func dotted(v any, path string) string {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[k]
	}
	s, _ := v.(string)
	return s
}
