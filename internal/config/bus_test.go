package config

import (
	"strings"
	"testing"
)

// A NATS URL with a user, password or token in the team file, which every
// agent can read, is refused; one without is taken, and relative
// credential files are made absolute (red team 9a, finding 9).
func TestBusURLWithASecretIsRefused(t *testing.T) {
	for _, url := range []string{"nats://s3cret@host:4222", "nats://user:pass@host:4222", "nats://a:4222, nats://tok@b:4222"} {
		p := writeTeam(t, "bus:\n  nats: \""+url+"\"\nagents:\n  - name: dev\n    command: [cat]\n")
		_, err := LoadTeam(p)
		if err == nil || !strings.Contains(err.Error(), "bus.creds") {
			t.Errorf("%s: %v", url, err)
		}
	}
	p := writeTeam(t, "bus:\n  nats: nats://host:4222\n  creds: team.creds\nagents:\n  - name: dev\n    command: [cat]\n")
	team, err := LoadTeam(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(team.Bus.Creds, "/team.creds") || !strings.HasPrefix(team.Bus.Creds, "/") {
		t.Errorf("creds %q", team.Bus.Creds)
	}
}
