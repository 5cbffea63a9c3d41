package primer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/teamlead/teamlead/internal/fsutil"
)

// Delivery modes: how a preset hands the primer to its CLI.
const (
	// ModeFlag appends arguments to the agent's command; the preset's
	// argument holds them, with {primer} where the text goes.
	ModeFlag = "flag"
	// ModeFile writes the primer into an instructions file in the agent's
	// working folder (AGENTS.md, GEMINI.md, CLAUDE.md), between markers.
	ModeFile = "file"
	// ModeMessage types the primer into the agent as its first message.
	ModeMessage = "message"
)

// Placeholder is replaced by the primer text in the arguments of ModeFlag.
const Placeholder = "{primer}"

// Marker lines around the primer in an instructions file; only the text
// between them is ever replaced.
const (
	BeginMarker = "<!-- teamlead primer: begin -->"
	EndMarker   = "<!-- teamlead primer: end -->"
)

// Sentinel errors.
var (
	// ErrMode: the delivery mode or its argument is not usable.
	ErrMode = errors.New("invalid primer delivery")
	// ErrMarkers: an instructions file holds the markers in a way that
	// cannot be updated without risking the user's text.
	ErrMarkers = errors.New("primer markers out of order")
)

// Delivery is what to do to hand an agent its primer. Exactly one of its
// parts is set, per mode.
type Delivery struct {
	// Args are appended to the agent's command (ModeFlag).
	Args []string
	// File is the instructions file to write with WriteFile (ModeFile);
	// FileText is the primer to put between its markers.
	File     string
	FileText string
	// Message is typed into the agent as its first message (ModeMessage).
	// Type it through the console's echo guard: the primer holds [ROUTE]
	// examples that must not be read back as the agent's own messages.
	Message string
}

// Plan decides how text reaches an agent for a preset's delivery mode and
// argument: for ModeFlag, arg is the arguments to append, split at blanks
// (quote with ' or " to keep blanks), one of them holding Placeholder; for
// ModeFile, arg is the file name, relative to workdir unless absolute; for
// ModeMessage, arg is unused. Plan does no I/O.
func Plan(text, mode, arg, workdir string) (Delivery, error) {
	switch mode {
	case ModeFlag:
		words, err := splitArgs(arg)
		if err != nil {
			return Delivery{}, fmt.Errorf("%w: flag %q: %v", ErrMode, arg, err)
		}
		args, err := FlagArgs(text, words)
		if err != nil {
			return Delivery{}, err
		}
		return Delivery{Args: args}, nil
	case ModeFile:
		name := strings.TrimSpace(arg)
		if name == "" {
			return Delivery{}, fmt.Errorf("%w: file: give the instructions file's name, e.g. AGENTS.md", ErrMode)
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(workdir, name)
		}
		return Delivery{File: name, FileText: text}, nil
	case ModeMessage:
		return Delivery{Message: text}, nil
	}
	return Delivery{}, fmt.Errorf("%w: mode %q: use %s, %s or %s", ErrMode, mode, ModeFlag, ModeFile, ModeMessage)
}

// FlagArgs is argv with Placeholder replaced by text in every argument
// that holds it (argv itself is not changed): the arguments ModeFlag
// appends, for a preset that gives them as a list.
func FlagArgs(text string, argv []string) ([]string, error) {
	out := make([]string, len(argv))
	found := false
	for i, w := range argv {
		out[i] = w
		if strings.Contains(w, Placeholder) {
			out[i] = strings.ReplaceAll(w, Placeholder, text)
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: flag %q has no %s where the primer goes, e.g. --append-system-prompt %s", ErrMode, strings.Join(argv, " "), Placeholder, Placeholder)
	}
	return out, nil
}

// splitArgs splits s at blanks; '...' and "..." keep blanks inside a word.
func splitArgs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c", quote)
	}
	if inWord {
		out = append(out, cur.String())
	}
	if len(out) == 0 {
		return nil, errors.New("no arguments")
	}
	return out, nil
}

// Merge returns the instructions file content existing with text as its
// primer block: the block between the markers is replaced (a second block
// is removed), or, with no block yet, appended after the user's text. Text
// outside the block is kept byte for byte. A begin marker without its end
// (or an end before any begin) is ErrMarkers: replacing it could eat the
// user's text.
func Merge(existing, text string) (string, error) {
	nl := "\n"
	if strings.Contains(existing, "\r\n") {
		nl = "\r\n"
	}
	body := strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	block := BeginMarker + nl + strings.ReplaceAll(body, "\n", nl) + nl + EndMarker + nl

	lines := strings.SplitAfter(existing, "\n")
	var out strings.Builder
	placed, inBlock := false, false
	beginLine := 0
	for i, l := range lines {
		switch strings.TrimSpace(l) {
		case BeginMarker:
			if inBlock {
				return "", fmt.Errorf("%w: line %d opens a primer block inside the one opened on line %d", ErrMarkers, i+1, beginLine)
			}
			inBlock, beginLine = true, i+1
			continue
		case EndMarker:
			if !inBlock {
				return "", fmt.Errorf("%w: line %d closes a primer block that was not opened", ErrMarkers, i+1)
			}
			inBlock = false
			if !placed {
				out.WriteString(block)
				placed = true
			}
			if !strings.HasSuffix(l, "\n") {
				// the end marker was the file's last line, without a newline
				s := out.String()
				out.Reset()
				out.WriteString(strings.TrimSuffix(s, nl))
			}
			continue
		}
		if !inBlock {
			out.WriteString(l)
		}
	}
	if inBlock {
		return "", fmt.Errorf("%w: the primer block opened on line %d has no %s line; add it or remove the block", ErrMarkers, beginLine, EndMarker)
	}
	if placed {
		return out.String(), nil
	}
	s := out.String()
	switch {
	case s == "":
		return block, nil
	case strings.HasSuffix(s, nl+nl):
	case strings.HasSuffix(s, "\n"):
		s += nl
	default:
		s += nl + nl
	}
	return s + block, nil
}

// WriteFile puts text as the primer block into the instructions file at
// path in the agent's folder root (see Merge), atomically: through a
// temporary file in the same folder and a rename, keeping the file's
// permissions. A symbolic link is followed (AGENTS.md pointing at
// CLAUDE.md) only to a Markdown file inside root and outside .git: an
// agent could point the name at the store, the teamlead program or a
// source file. The folder is created if missing; a file that already
// holds exactly this content is not touched.
func WriteFile(root, path, text string) error {
	real, err := fsutil.Within(root, path)
	if err != nil {
		return fmt.Errorf("primer: not written: %w", err)
	}
	if real != filepath.Clean(path) {
		if !strings.EqualFold(filepath.Ext(real), ".md") || strings.Contains(real+string(filepath.Separator), string(filepath.Separator)+".git"+string(filepath.Separator)) {
			return fmt.Errorf("primer: not written: %s is a link to %s, which is not a Markdown file of the agent's folder", path, real)
		}
		path = real
	}
	perm := fs.FileMode(0o644)
	old, err := fsutil.ReadRegular(path)
	switch {
	case err == nil:
		if fi, err := os.Stat(path); err == nil {
			if !fi.Mode().IsRegular() {
				return fmt.Errorf("primer: %s is not a regular file", path)
			}
			perm = fi.Mode().Perm()
		}
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	default:
		return fmt.Errorf("primer: %w", err)
	}
	merged, err := Merge(string(old), text)
	if err != nil {
		return fmt.Errorf("primer: %s: %w", path, err)
	}
	if old != nil && bytes.Equal(old, []byte(merged)) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("primer: %w", err)
	}
	if err := fsutil.WriteFileAtomic(path, []byte(merged), perm); err != nil {
		return fmt.Errorf("primer: %w", err)
	}
	return nil
}
