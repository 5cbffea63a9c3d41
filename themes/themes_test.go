package themes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinsLoad(t *testing.T) {
	names := Names()
	if strings.Join(names, ",") != "dark,high-contrast,light" {
		t.Fatalf("names %v", names)
	}
	for _, n := range names {
		th, err := Load(n)
		if err != nil || th.Name != n {
			t.Errorf("%s: %+v %v", n, th, err)
		}
	}
	if th, err := Load(""); err != nil || th.Name != Default {
		t.Errorf("default: %+v %v", th, err)
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load("neon"); !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "dark, high-contrast, light") {
		t.Errorf("unknown: %v", err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "mine.yaml")
	data, _ := files.ReadFile("dark.yaml")
	os.WriteFile(bad, []byte(strings.Replace(string(data), `ok: "#5fd787"`, `ok: green`, 1)), 0o600)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), `ok: "green" is not a colour`) {
		t.Errorf("bad colour: %v", err)
	}
	os.WriteFile(bad, append(data, []byte("sparkle: yes\n")...), 0o600)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "sparkle") {
		t.Errorf("unknown key: %v", err)
	}
}
