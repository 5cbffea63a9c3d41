package clihook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/teamlead/teamlead/internal/fsutil"
)

// Gemini CLI runs teamlead's hooks when a turn starts (BeforeAgent) and
// when it ends (AfterAgent). (Its confirmation dialog is the dialog door's:
// read off the screen, it shows the agent waiting.) The settings file holding them is handed to the CLI
// as its system defaults (GeminiEnv), the lowest of its settings layers:
// the person's own settings and the project's are not touched.
//
// Permission decisions stay with the dialog on its screen: a BeforeTool
// hook can block a call but, in Gemini CLI 0.61, not spare it the
// confirmation its own policy asks for.

// GeminiEnv names the file Gemini CLI reads as its system defaults.
const GeminiEnv = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"

// GeminiStates are the Gemini CLI hook events teamlead installs, and the
// agent state each one means.
var GeminiStates = map[string]string{
	"BeforeAgent": "busy",
	"AfterAgent":  "idle",
}

// GeminiSettings is the settings file running `self hook` on each of
// GeminiStates' events.
func GeminiSettings(self string) ([]byte, error) {
	hooks := map[string]any{}
	for ev := range GeminiStates {
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{
			"type": "command", "name": "teamlead", "command": command(self), "timeout": 10000}}}}
	}
	// teamlead's tools (teamlead mcp), trusted: they only send through the
	// Team Lead, so Gemini CLI asks no confirmation of its own for them.
	// The server finds the console and the agent in the environment the
	// CLI passes on (TEAMLEAD_SOCKET, TEAMLEAD_AGENT).
	mcp := map[string]any{"teamlead": map[string]any{"command": self, "args": []string{"mcp"}, "trust": true}}
	data, err := json.MarshalIndent(map[string]any{"hooks": hooks, "mcpServers": mcp}, "", "  ")
	return append(data, '\n'), err
}

// ErrInsecureDir is a folder Gemini CLI takes no settings from: it, or a
// folder above it, can be written by group or others (/tmp).
var ErrInsecureDir = errors.New("Gemini CLI reads no settings file there")

// GeminiReads checks that Gemini CLI will read a settings file in dir: it
// skips one when any folder on its path can be written by group or others.
func GeminiReads(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for d := abs; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("%w: %s can be written by group or others (mode %v)", ErrInsecureDir, d, fi.Mode().Perm())
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// WriteGemini writes GeminiSettings into dir (teamlead's state folder) and
// returns the file's path, for GeminiEnv; an error wrapping ErrInsecureDir
// when Gemini CLI would not read it there.
func WriteGemini(dir, self string) (string, error) {
	data, err := GeminiSettings(self)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := GeminiReads(dir); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "gemini-hooks.json")
	if err := fsutil.WriteFileAtomic(path, data, 0o644); err != nil {
		return "", fmt.Errorf("writing the Gemini CLI hooks: %w", err)
	}
	return path, nil
}

// IsGeminiEvent reports whether a hook event is one of GeminiStates'.
func IsGeminiEvent(name string) bool { _, ok := GeminiStates[name]; return ok }

// WriteGeminiAnswer replies to a Gemini CLI hook: it reads stdout as JSON,
// and an empty object changes nothing.
func WriteGeminiAnswer(w io.Writer) error {
	_, err := io.WriteString(w, "{}\n")
	return err
}
