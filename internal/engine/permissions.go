package engine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/configs"
	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/fsutil"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/internal/readmodel"
)

// permissions is the engine's part of permission requests: the policy in
// force (read and replaced on the loop goroutine only) and the hooks
// waiting for the human's decision.
type permissions struct {
	policy  *permit.Policy
	home    string
	workdir map[string]string

	mu      sync.Mutex
	waiters map[string][]chan approvals.Request // by request id
	hooks   sync.Map                            // agent → hookState
	hooked  sync.Map                            // agent → true once its CLI's hook spoke
}

// hookState is what an agent's CLI hook, or its screen, last said about
// it.
type hookState struct {
	state string
	at    time.Time
	from  string // stateFromHook or stateFromScreen
}

// Where an agent's state came from.
const (
	stateFromHook   = "hook"
	stateFromScreen = "screen"
)

// hookPrecedence is how long a state an agent's hook reported outranks
// what its screen shows: the hook is the CLI's own word, the screen a
// reading of it.
const hookPrecedence = 10 * time.Second

// newApprovals builds the permission machine from the team's policy and
// the requests stored by an earlier run.
func (e *Engine) newApprovals() (*approvals.Machine, error) {
	pol := e.opts.Team.Permissions.Parsed
	if pol == nil {
		var err error
		if pol, err = permit.Builtin(); err != nil {
			return nil, err
		}
	}
	home, _ := os.UserHomeDir()
	e.perm = &permissions{policy: pol, home: home, workdir: map[string]string{}, waiters: map[string][]chan approvals.Request{}}
	for _, a := range e.opts.Team.Agents {
		e.perm.workdir[a.Name] = a.Dir
	}
	restored, err := readmodel.StoredPermissions(e.store)
	if err != nil {
		return nil, err
	}
	return approvals.New(e.checker(), e.opts.Team.Permissions.EscalateAfter, restored...), nil
}

// checker decides with the policy in force, in the agent's working folder.
func (e *Engine) checker() approvals.Checker {
	return func(action, agent, cwd string) permit.Decision {
		env := e.env(agent)
		if filepath.IsAbs(cwd) {
			// The CLI's shell keeps its cd between calls: after cd
			// .git/hooks, cp x pre-commit writes a hook (red team 19a,
			// finding 7). A folder outside the working one makes every
			// relative path outside it.
			env.Cwd = filepath.Clean(cwd)
		}
		return e.budgetFloor(agent, e.perm.policy.Check(action, agent, env))
	}
}

// env is where an agent works, for the policy: its folder, the home
// folder, the real file system (symbolic links, globs and folders are
// looked up) and teamlead's own files, whose writes are on the floor.
func (e *Engine) env(agent string) permit.Env {
	var own []string
	if e.opts.Team != nil {
		own = e.opts.Team.OwnFiles()
	}
	return permit.Env{Workdir: e.perm.workdir[agent], Home: e.perm.home, FS: permit.OSFS{Isolate: e.isolate}, Protected: own,
		GoModCache: permit.GoModCacheOf(os.Getenv), Environ: e.agentEnviron(agent)}
}

// agentEnviron is the environment the agent's programs start with: the
// console's and its entry's (nil for an agent the team does not name).
func (e *Engine) agentEnviron(agent string) []string {
	if e.opts.Team == nil || e.launch == nil {
		return nil
	}
	for _, a := range e.opts.Team.Agents {
		if a.Name == agent {
			return agents.Environ(e.launch.Env(a))
		}
	}
	return nil
}

// afterPermissions carries out what a committed batch decided: keys
// pressed in dialogs, hooks woken.
func (e *Engine) afterPermissions(keys []lead.KeyPress, resolved []approvals.Request) {
	for _, k := range keys {
		a := e.agent(k.Agent)
		if a == nil || k.Keys == "" {
			continue
		}
		press := func() {
			if pk, ok := a.(keyPresser); ok {
				e.pressKey(pk, k)
				return
			}
			if _, err := a.Write([]byte(k.Keys)); err != nil && e.opts.OnError != nil {
				e.opts.OnError(fmt.Errorf("answering %s's dialog for %s: %w", k.Agent, k.Permission, err))
			}
		}
		if wait := time.Until(k.NotBefore); wait > 0 {
			time.AfterFunc(wait, press) // the CLI is still drawing its dialog
		} else {
			press()
		}
	}
	if len(resolved) == 0 {
		return
	}
	e.perm.mu.Lock()
	defer e.perm.mu.Unlock()
	for _, r := range resolved {
		for _, ch := range e.perm.waiters[r.ID] {
			ch <- r
		}
		delete(e.perm.waiters, r.ID)
	}
}

// What became of a dialog key that did not answer its dialog (input.n of
// inKeyUnread).
const (
	keyGone     = 0 // taken back unread, and its dialog is gone
	keyOpen     = 1 // taken back unread, its dialog still shows
	keyNotTyped = 2 // not typed: its dialog was not on the screen
)

// keyPresser types a dialog key and tells whether the program read it
// (agents.Agent.PressKey).
type keyPresser interface {
	PressKey(keys string, wait time.Duration, shown func() bool, done func(agents.KeyOutcome))
}

// pressKey types k's key into its dialog. It answers the dialog only once
// the CLI read it while that dialog was on screen: a key left unread when
// the dialog leaves or changes, or after agents.KeyReadWait, is taken back
// and the request is open again (or withdrawn, its dialog gone), so that no
// stale key answers a later, different dialog (red team 18b, finding 1).
func (e *Engine) pressKey(pk keyPresser, k lead.KeyPress) {
	s := e.sinks[k.Agent]
	shown := func() bool { return s == nil || s.dialogShows(k.Action) }
	pk.PressKey(k.Keys, 0, shown, func(o agents.KeyOutcome) {
		switch o {
		case agents.KeyTakenBack:
			open := keyGone
			if shown() {
				open = keyOpen
			}
			e.send(input{kind: inKeyUnread, agent: k.Agent, reason: k.Permission, n: open})
		case agents.KeyNotShown:
			e.send(input{kind: inKeyUnread, agent: k.Agent, reason: k.Permission, n: keyNotTyped})
		}
	})
}

// HookPermission is a request from agent's CLI hook for action. It returns
// the decision, waiting up to permissions.hook_wait for the human; a
// request still pending then is returned pending (the CLI asks in its own
// dialog, which continues the same request).
func (e *Engine) HookPermission(agent, action, cwd string) (approvals.Request, error) {
	var r approvals.Request
	ch := make(chan approvals.Request, 1)
	err := e.do(func(now time.Time) (lead.Output, error) {
		req, out, err := e.lead.PermissionHook(agent, action, cwd, now)
		r = req
		if err == nil && !req.Done() {
			e.perm.mu.Lock()
			e.perm.waiters[req.ID] = append(e.perm.waiters[req.ID], ch)
			e.perm.mu.Unlock()
		}
		return out, err
	})
	if err != nil || r.Done() {
		return r, err
	}
	select {
	case d := <-ch:
		return d, nil
	case <-e.done:
		// The console is stopping: the CLI asks in its own dialog.
		return r, ErrStopped
	case <-time.After(e.opts.Team.Permissions.HookWait):
		e.perm.mu.Lock()
		list := e.perm.waiters[r.ID]
		for i, c := range list {
			if c == ch {
				e.perm.waiters[r.ID] = append(list[:i], list[i+1:]...)
			}
		}
		e.perm.mu.Unlock()
		_ = e.do(func(now time.Time) (lead.Output, error) { return e.lead.HookGaveUp(r.ID, now), nil })
		return r, nil
	}
}

// DecidePermission is the human's decision on request id; note is the
// message to the agent.
func (e *Engine) DecidePermission(id string, approve bool, note string) error {
	return e.do(func(now time.Time) (lead.Output, error) { return e.lead.DecidePermission(id, approve, note, now) })
}

// ApproveAlways approves request id and writes a rule into the policy
// file so that the next such request is approved without asking: scope is
// exact, prefix, dir or tool; forAll makes the rule every agent's, not only
// the requester's. A floor action cannot be approved always. When the
// policy allows the action already, it is approved once and the note
// (approvals.NoRuleNote) says what allows it.
func (e *Engine) ApproveAlways(id, scope string, forAll bool) error {
	sc, err := permit.ParseScope(scope)
	if err != nil {
		return err
	}
	return e.do(func(now time.Time) (lead.Output, error) {
		r, ok := e.lead.Permission(id)
		if !ok {
			return lead.Output{}, fmt.Errorf("%w: %s", approvals.ErrNoRequest, id)
		}
		if r.Done() {
			return lead.Output{}, fmt.Errorf("%w: %s was %s by %s", approvals.ErrDecided, id, r.Status, r.DecidedBy)
		}
		plan, err := permit.PlanAlways(e.perm.policy, r.Action, r.Agent, sc, e.env(r.Agent))
		if err != nil {
			return lead.Output{}, err
		}
		rules := plan.Rules
		if len(rules) == 0 {
			// Allowed by now (a rule added since it was asked): approved
			// once, and nothing is written.
			return e.lead.DecidePermission(id, true, approvals.NoRuleNote+plan.Why, now)
		}
		path := e.opts.Team.Permissions.Policy
		agent := r.Agent
		if forAll {
			agent = ""
		}
		// The new policy is built from the one accepted (the built-in one
		// when there is no file yet) and is what the console loads: never
		// what an agent may have written into the file meanwhile.
		change := func(current []byte) ([]byte, error) {
			if current == nil {
				current = configs.Permissions
			}
			for _, rule := range rules {
				add := permit.Addition{Agent: agent, Match: rule, Decide: permit.Allow, Why: "approved always by the human (" + id + ")",
					Comment: fmt.Sprintf("added by teamlead %s: approve always %s for %s", now.Format(time.RFC3339), id, r.Agent), Action: r.Action, ActionAgent: r.Agent}
				var err error
				if current, err = permit.AddRuleTo(path, current, add, e.env(r.Agent)); err != nil {
					return nil, err
				}
			}
			return current, nil
		}
		write := e.opts.OwnWrite
		if write == nil {
			write = writeUnguarded
		}
		data, err := write(path, change)
		if err != nil {
			return lead.Output{}, err
		}
		e.opts.Team.Permissions.Builtin = false
		pol, err := permit.Parse(path, data)
		if err != nil {
			return lead.Output{}, fmt.Errorf("the policy file no longer loads after adding %s: %w", strings.Join(rules, ", "), err)
		}
		e.perm.policy = pol
		return e.lead.DecidePermission(id, true, fmt.Sprintf("%s%s added to %s", approvals.AlwaysNote, strings.Join(rules, ", "), path), now)
	})
}

// PlanAlways says what approving request id always at scope would do,
// against the policy in force and the agent's folder, without doing it:
// the rules ApproveAlways would write (none, and why, when the policy
// allows the action already), or why it cannot.
func (e *Engine) PlanAlways(id, scope string) (permit.AlwaysPlan, error) {
	sc, err := permit.ParseScope(scope)
	if err != nil {
		return permit.AlwaysPlan{}, err
	}
	var plan permit.AlwaysPlan
	err = e.do(func(time.Time) (lead.Output, error) {
		r, ok := e.lead.Permission(id)
		if !ok {
			return lead.Output{}, fmt.Errorf("%w: %s", approvals.ErrNoRequest, id)
		}
		if r.Done() {
			return lead.Output{}, fmt.Errorf("%w: %s was %s by %s", approvals.ErrDecided, id, r.Status, r.DecidedBy)
		}
		var err error
		plan, err = permit.PlanAlways(e.perm.policy, r.Action, r.Agent, sc, e.env(r.Agent))
		return lead.Output{}, err
	})
	return plan, err
}

// writeUnguarded is the engine's write of its own file with no guard (a
// console without one, tests): change gets the file's content (nil when
// there is none) and the new content is written in place.
func writeUnguarded(path string, change func([]byte) ([]byte, error)) ([]byte, error) {
	current, err := fsutil.ReadRegular(path)
	if errors.Is(err, os.ErrNotExist) {
		current, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	out, err := change(current)
	if err != nil {
		return nil, err
	}
	return out, fsutil.Rewrite(path, out, fsutil.Perm(path, 0o644))
}

// PermissionAnswer is the human's word on request id as typed in the inbox
// or given to teamlead answer: approve (once), always [exact|prefix|dir|tool]
// [all], or deny [message to the agent].
func (e *Engine) PermissionAnswer(id, text string) error {
	word, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(strings.Trim(word, ".,:;!")) {
	case "approve", "approved", "yes", "y", "ok", "allow", "once":
		return e.DecidePermission(id, true, rest)
	case "always":
		scope, all := "prefix", false
		for _, f := range strings.Fields(rest) {
			if f == "all" {
				all = true
			} else {
				scope = f
			}
		}
		return e.ApproveAlways(id, scope, all)
	case "deny", "denied", "no", "n", "reject":
		return e.DecidePermission(id, false, rest)
	}
	return fmt.Errorf("start the answer to %s with approve, always [exact|prefix|dir|tool] [all], or deny [message]", id)
}

// Permissions lists every permission request, newest first.
func (e *Engine) Permissions() []approvals.Request {
	var rs []approvals.Request
	_ = e.do(func(time.Time) (lead.Output, error) {
		rs = e.lead.Permissions()
		return lead.Output{}, nil
	})
	return rs
}

// HookState records what agent's CLI hook says it is doing: busy, idle or
// waiting (for the human, at a prompt or dialog).
func (e *Engine) HookState(agent, state string) {
	e.perm.hooks.Store(agent, hookState{state: state, at: e.now(), from: stateFromHook})
	e.perm.hooked.Store(agent, true)
	// Deliveries wait for the end of a turn the CLI's own hook tells
	// (agents.Agent.Busy). Once a CLI's hook has spoken, its screen no
	// longer starts a turn (screenState): the hook is surer.
	if a := e.agent(agent); a != nil {
		a.Busy(state == "busy")
	}
}

// screenState records the state read off an agent's screen, unless its
// hook spoke within hookPrecedence.
func (e *Engine) screenState(agent, state string) {
	now := e.now()
	if a := e.agent(agent); a != nil && state == "idle" {
		// A turn can end with no hook telling (Gemini CLI's, cancelled at
		// its dialog): a screen at rest lets the waiting messages in.
		a.Busy(false)
	} else if _, hooked := e.perm.hooked.Load(agent); a != nil && state == "busy" && !hooked {
		// A CLI with no hooks (Copilot CLI, OpenCode) is in a turn when its
		// screen says so: what is typed then waits for the turn's end (or
		// agents' bound on a turn). Typed in the middle, a message's
		// submit key met the next permission dialog the CLI opened and
		// approved a critical command nobody had decided (seen in CI).
		a.Busy(true)
	}
	if v, ok := e.perm.hooks.Load(agent); ok {
		if h := v.(hookState); h.from == stateFromHook && now.Sub(h.at) < hookPrecedence {
			return
		}
	}
	e.perm.hooks.Store(agent, hookState{state: state, at: now, from: stateFromScreen})
}

// hookStateOf is agent's last state from its hook or screen ("" if none).
func (e *Engine) hookStateOf(agent string) hookState {
	if v, ok := e.perm.hooks.Load(agent); ok {
		return v.(hookState)
	}
	return hookState{}
}

// isolate starts a program the policy runs (git, on a repository an agent
// can configure) as an agent's: agents.Isolate with teamlead's files
// protected.
func (e *Engine) isolate(cmd *exec.Cmd) { agents.Isolate(cmd, e.protected()...) }
