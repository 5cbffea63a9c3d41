package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A new state folder that something wrote into while the console was
// making it (before other consoles protected it) is refused (red team
// 11a, finding 9, the same door in the moment of the start).
func TestNewStateWrittenMeanwhileIsRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		write []string // files made in the state folder
		want  string   // "" when taken
	}{
		{"as the console made it", nil, ""},
		{"a nats folder", []string{"nats/jetstream/x"}, "nats appeared"},
		{"a planted token", []string{"secrets/nats-token"}, "secrets appeared"},
		{"a store file", []string{"store/MANIFEST"}, "store appeared"},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := t.TempDir()
			for _, d := range []string{"secrets", "store"} {
				if err := os.Mkdir(filepath.Join(state, d), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range c.write {
				p := filepath.Join(state, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := checkStillFresh(state)
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("want %q, got %v", c.want, err)
			}
		})
	}
}
