// Package themes holds the console's colour palettes (*.yaml here,
// embedded in the binary) and loads them by name or from a file.
package themes

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed *.yaml
var files embed.FS

// ErrUnknown is returned for a theme name that is neither built in nor a file.
var ErrUnknown = errors.New("unknown theme")

// Default is the theme used when none is chosen.
const Default = "dark"

// Theme is a palette. Each colour is "#rrggbb" or an ANSI 256 number.
type Theme struct {
	// Name identifies the theme.
	Name string `yaml:"name"`
	// Fg is ordinary text.
	Fg string `yaml:"fg"`
	// Muted is secondary text: ages, hints, separators.
	Muted string `yaml:"muted"`
	// Accent marks titles and keys in help.
	Accent string `yaml:"accent"`
	// Border draws unfocused pane borders.
	Border string `yaml:"border"`
	// BorderFocus draws the focused pane's border.
	BorderFocus string `yaml:"border_focus"`
	// SelectedFg and SelectedBg draw the selected row.
	SelectedFg string `yaml:"selected_fg"`
	// SelectedBg is the selected row's background.
	SelectedBg string `yaml:"selected_bg"`
	// Ok marks healthy states (idle, running).
	Ok string `yaml:"ok"`
	// Busy marks an agent at work.
	Busy string `yaml:"busy"`
	// Warn marks what needs attention soon (restarting, waiting).
	Warn string `yaml:"warn"`
	// Error marks failures and refusals.
	Error string `yaml:"error"`
	// BadgeFg and BadgeBg draw the "needs you" badge.
	BadgeFg string `yaml:"badge_fg"`
	// BadgeBg is the badge's background.
	BadgeBg string `yaml:"badge_bg"`
}

var colorRE = regexp.MustCompile(`^(#[0-9a-fA-F]{6}|[0-9]{1,3})$`)

// Names lists the built-in themes.
func Names() []string {
	entries, _ := files.ReadDir(".")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// Load returns the built-in theme called name, or reads name as a file
// path when it ends in .yaml.
func Load(name string) (Theme, error) {
	if name == "" {
		name = Default
	}
	var data []byte
	var err error
	if strings.HasSuffix(name, ".yaml") || strings.ContainsRune(name, filepath.Separator) {
		data, err = os.ReadFile(name)
	} else {
		data, err = files.ReadFile(name + ".yaml")
	}
	if err != nil {
		return Theme{}, fmt.Errorf("%w %q: built-in themes are %s, or give a .yaml file", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	return parse(name, data)
}

// Parse reads a theme file's content; name names it in errors.
func Parse(name string, data []byte) (Theme, error) { return parse(name, data) }

func parse(name string, data []byte) (Theme, error) {
	var t Theme
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&t); err != nil {
		return Theme{}, fmt.Errorf("theme %s: %w", name, err)
	}
	for field, v := range map[string]string{"fg": t.Fg, "muted": t.Muted, "accent": t.Accent, "border": t.Border,
		"border_focus": t.BorderFocus, "selected_fg": t.SelectedFg, "selected_bg": t.SelectedBg, "ok": t.Ok,
		"busy": t.Busy, "warn": t.Warn, "error": t.Error, "badge_fg": t.BadgeFg, "badge_bg": t.BadgeBg} {
		if !colorRE.MatchString(v) {
			return Theme{}, fmt.Errorf("theme %s: %s: %q is not a colour (use #rrggbb or an ANSI number 0-255)", name, field, v)
		}
	}
	return t, nil
}
