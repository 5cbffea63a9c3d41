package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/engine"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/term"
	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui"
	"github.com/teamlead/teamlead/tui/components/screen"
	"github.com/teamlead/teamlead/tui/style"
)

// consoleOf adapts the engine to the dashboard. The engine lists the
// permission requests itself (Permissions), so the console shows the
// permissions board; decisions go through Answer (AnswerAny takes p-<n>).
type consoleOf struct{ *engine.Engine }

var (
	_ tui.Console          = consoleOf{}
	_ tui.PermissionLister = consoleOf{}
	_ tui.AlwaysPlanner    = consoleOf{}
)

func (c consoleOf) Screen(agent string) screen.Source {
	if s := c.Engine.Screen(agent); s != nil {
		return s
	}
	return nil
}

// Answer answers a question or an inbox item, gives a verdict on a
// consultation, or decides a permission request (approve, always, deny).
func (c consoleOf) Answer(id, text string) error { return c.Engine.AnswerAny(id, text) }

// ListQuestions lists stored questions by status.
func (c consoleOf) ListQuestions(status string) ([]questions.Question, error) {
	return readmodel.ListQuestions(c.Engine.Store(), status, "")
}

// loadTheme loads the theme called name; the team's own theme file is
// taken as the team's load read it (the bytes the guard checked).
func loadTheme(team *config.Team, name string) (themes.Theme, error) {
	if name != "" && slices.Contains(team.OwnFiles(), filepath.Clean(name)) {
		data, err := team.OwnData(name)
		if err != nil {
			return themes.Theme{}, fmt.Errorf("theme %s: %w", name, err)
		}
		return themes.Parse(name, data)
	}
	return themes.Load(name)
}

// runConsole runs the dashboard until the human quits or ctx ends (a
// signal); the caller then stops the engine.
// onError receives the function that shows the engine's errors in the
// console while it runs.
func runConsole(ctx context.Context, eng *engine.Engine, team *config.Team, themeName string, runStart uint64, protect []string, onError func(func(error))) error {
	if !term.IsTerminal(int(os.Stdout.Fd())) || !term.IsTerminal(int(os.Stdin.Fd())) {
		return fmt.Errorf("the console needs a terminal; use --headless to run without one")
	}
	if themeName == "" {
		themeName = team.ThemeName()
	}
	th, err := loadTheme(team, themeName)
	if err != nil {
		return err
	}
	keys := tui.DefaultKeyMap()
	if err := keys.Rebind(team.UI.Keys); err != nil {
		return fmt.Errorf("%s: ui.%w", team.File, err)
	}
	_, noColor := os.LookupEnv("NO_COLOR")
	model := tui.New(consoleOf{eng}, style.New(th, noColor), tui.Options{Keys: keys, Notify: notifier(team.UI.Notify, protect), Stall: team.Progress.Stall, RunStart: &runStart})
	p := tea.NewProgram(model, tea.WithAltScreen(), tea.WithContext(ctx))
	onError(func(err error) { p.Send(tui.StatusError(err)) })
	_, err = p.Run()
	if err == tea.ErrProgramKilled && ctx.Err() != nil {
		return nil // stopped by a signal: a clean stop
	}
	return err
}

// notifier rings the terminal bell and runs the configured command.
func notifier(argv []string, protect []string) func(title, body string) {
	return func(title, body string) {
		_, _ = io.WriteString(os.Stderr, "\a")
		if len(argv) == 0 {
			return
		}
		cmd := exec.Command(argv[0], append(append([]string{}, argv[1:]...), title, body)...)
		agents.Isolate(cmd, protect...) // named by the team file, which an agent can write
		if err := cmd.Start(); err == nil {
			go func() {
				t := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
				_ = cmd.Wait()
				t.Stop()
			}()
		}
	}
}
