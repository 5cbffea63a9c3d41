package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/detect"
)

// dialogWatch reads one agent's screen for its CLI's permission dialog
// with the preset's detector (the fallback door: hooks are preferred,
// screens change between CLI versions). It runs on the sink's scan loop.
type dialogWatch struct {
	det *detect.Detector
	// open is the action of the dialog on screen ("" when none).
	open string
	// reported is set once a dialog-like screen the detector did not
	// match was reported, so it is said once, not at every frame.
	reported bool
	// state is the CLI's state read off the screen last time.
	state string
}

// newDialogWatch compiles the preset's detector; nil when the preset reads
// neither dialogs nor states.
func newDialogWatch(e *Engine, a config.Agent) *dialogWatch {
	p, ok := e.opts.Team.Resolved[a.Name]
	if !ok || p.Permission == nil && p.State == nil {
		return nil
	}
	det, err := detect.Compile(a.Preset, p.Permission, p.State)
	if err != nil {
		if e.opts.OnError != nil {
			e.opts.OnError(fmt.Errorf("agent %s: %w; its permission dialogs are not read", a.Name, err))
		}
		return nil
	}
	return &dialogWatch{det: det}
}

// look checks the screen once output settled: a new dialog holds the
// agent's typing and becomes a permission request; a dialog gone releases
// it; a screen that looks like a dialog the detector cannot read is
// reported once.
func (s *sink) look() {
	w := s.dialogs
	rows := detect.Rows(s.term.SnapshotTail(0))
	m, ok := w.det.Check(rows)
	if state := m.Kind; state != w.state {
		w.state = state
		if state != detect.KindUnknown {
			s.e.screenState(s.name, state)
		}
		if state == detect.KindIdle {
			s.e.findSessionSoon(s.name) // a turn ended: a CLI may have recorded its conversation
		}
	}
	switch {
	case ok:
		action := m.Action
		if m.Tool != "" {
			action = m.Tool + "(" + m.Action + ")"
		}
		if action == w.open {
			return
		}
		w.open = action
		s.hold(true)
		s.e.send(input{kind: inDialog, agent: s.name, reason: action,
			keys: approvals.Keys{Approve: string(m.Approve), Deny: string(m.Deny), Settle: m.Settle}})
	case w.open != "":
		w.open = ""
		s.hold(false)
		s.e.send(input{kind: inDialogGone, agent: s.name})
	default:
		if err := w.det.Diagnose(rows); err != nil && errors.Is(err, detect.ErrUnmatchedDialog) && !w.reported {
			w.reported = true
			if s.e.opts.OnError != nil {
				s.e.opts.OnError(fmt.Errorf("agent %s: %w — fix the preset's permission section in presets.yaml (teamlead answers nothing on this screen)", s.name, err))
			}
		}
	}
}

// dialogShown reports whether the agent's screen shows its CLI's
// permission dialog now: the writer asks right before it types and before
// it presses the submit key, as a dialog drawn since the last look would
// take the keys as its answer (agents.Spec.DialogShown).
//
// A screen whose last rows look like a dialog the detector cannot read
// counts too: typing into it on trust let a relayed message's "1" answer
// it (red team 19b, finding 5); the message waits until it is gone, and
// the human is told the preset needs fixing (look).
func (s *sink) dialogShown() bool {
	if s.dialogs == nil {
		return false
	}
	rows := detect.Rows(s.term.SnapshotTail(0))
	if _, ok := s.dialogs.det.Check(rows); ok {
		return true
	}
	return detect.LooksLikeDialog(lastRows(rows, dialogTail))
}

// dialogTail is how many of the screen's last rows a dialog still to be
// answered is looked for in: an old one scrolled up no longer holds.
const dialogTail = 16

// lastRows are the last n rows of rows that are not blank at the end.
func lastRows(rows []string, n int) []string {
	end := len(rows)
	for end > 0 && strings.TrimSpace(rows[end-1]) == "" {
		end--
	}
	return rows[max(0, end-n):end]
}

// dialogShows reports whether the agent's screen shows its CLI's
// permission dialog for action now.
func (s *sink) dialogShows(action string) bool {
	if s.dialogs == nil {
		return false
	}
	m, ok := s.dialogs.det.Check(detect.Rows(s.term.SnapshotTail(0)))
	if !ok {
		return false
	}
	got := m.Action
	if m.Tool != "" {
		got = m.Tool + "(" + m.Action + ")"
	}
	return got == action
}

// hold stops or resumes typing into the agent.
func (s *sink) hold(on bool) {
	if a := s.runner(); a != nil {
		a.Hold(on)
	}
}
