package safeinput

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestCtrlVRunsNoClipboardHelper runs ctrl+v in both fields in a child
// process whose PATH starts with a folder holding an xclip, xsel and
// wl-paste of the test's (the clipboard library picks its helper when the
// process starts): none may run (red team 13a, finding 1).
func TestCtrlVRunsNoClipboardHelper(t *testing.T) {
	if dir := os.Getenv("SAFEINPUT_CHILD"); dir != "" {
		line := Line()
		line.Focus()
		area := Area()
		area.Focus()
		_, c1 := line.Update(tea.KeyMsg{Type: tea.KeyCtrlV})
		_, c2 := area.Update(tea.KeyMsg{Type: tea.KeyCtrlV})
		for _, c := range []tea.Cmd{c1, c2} {
			if c != nil {
				c()
			}
		}
		return
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	for _, name := range []string{"xclip", "xsel", "wl-paste", "wl-copy", "termux-clipboard-get"} {
		script := "#!/bin/sh\necho " + name + " >> " + marker + "\necho pasted\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCtrlVRunsNoClipboardHelper$")
	cmd.Env = append(os.Environ(), "SAFEINPUT_CHILD="+dir, "PATH="+dir+":"+os.Getenv("PATH"), "WAYLAND_DISPLAY=", "DISPLAY=:0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("ctrl+v ran the clipboard helper on PATH: %s", b)
	}
}
