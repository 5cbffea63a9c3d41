package config

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Bus says where the team's bus runs. With no bus section everything runs
// on the console's own store, with no server; with one, the console also
// publishes the team's records on NATS JetStream for other machines.
type Bus struct {
	// Name is the team's name on NATS (its stream is TEAMLEAD_<name>); default: the name of the folder of the team file (its parent when that folder is configs or .teamlead).
	Name string `yaml:"name"`
	// NATS is the NATS server's URL (nats://host:4222, tls://host:4222, or a comma-separated list for a cluster); also --nats and TEAMLEAD_NATS.
	NATS string `yaml:"nats"`
	// Creds is a NATS credentials file (user JWT and NKey seed), relative to the team file.
	Creds string `yaml:"creds"`
	// TLS names the files of a TLS connection, relative to the team file.
	TLS BusTLS `yaml:"tls"`
	// Listen starts a NATS server with JetStream inside the console on HOST:PORT (its files under the state folder), for a team with no NATS of its own; also --nats-listen.
	Listen string `yaml:"listen"`
}

// BusTLS are the files of a TLS connection to NATS.
type BusTLS struct {
	// CA is the certificate authority that signed the server's certificate.
	CA string `yaml:"ca"`
	// Cert and Key are the client's certificate and key, when the server asks for one.
	Cert string `yaml:"cert"`
	Key  string `yaml:"key"`
}

// teamName is the default bus name: the team file's folder, or the one
// above it when that folder only holds configuration.
func teamName(file string) string {
	dir := filepath.Dir(file)
	if b := filepath.Base(dir); b == "configs" || b == ".teamlead" || b == "config" {
		dir = filepath.Dir(dir)
	}
	if n := filepath.Base(dir); n != "/" && n != "." {
		return n
	}
	return "team"
}

func (t *Team) validateBus(file string, root *yaml.Node, base string, p *problems) {
	b := &t.Bus
	if b.Name == "" {
		b.Name = teamName(t.File)
	}
	node := child(root, "bus")
	for _, f := range []*string{&b.Creds, &b.TLS.CA, &b.TLS.Cert, &b.TLS.Key} {
		if *f != "" && !filepath.IsAbs(*f) {
			*f = filepath.Join(base, *f)
		}
	}
	if err := CheckNATSURL(b.NATS); err != nil {
		p.add(&FieldError{File: file, Line: lineOf(node, "nats"), Field: "bus.nats", Msg: err.Error()})
	} else if urlHasSecret(b.NATS) {
		p.add(&FieldError{File: file, Line: lineOf(node, "nats"), Field: "bus.nats",
			Msg: "the URL carries a user, password or token, and every agent can read the team file: put them in a credentials file (bus.creds, hidden from agents) or in TEAMLEAD_NATS"})
	}
	if err := CheckListen(b.Listen); err != nil {
		p.add(&FieldError{File: file, Line: lineOf(node, "listen"), Field: "bus.listen", Msg: err.Error()})
	}
	// Hidden from agents by their folder (secretdir.go), which must hold
	// nothing an agent needs.
	if err := t.CheckSecretFolder(b.Creds); err != nil {
		p.add(&FieldError{File: file, Line: lineOf(node, "creds"), Field: "bus.creds", Msg: err.Error()})
	}
	if err := t.CheckSecretFolder(b.TLS.Key); err != nil {
		p.add(&FieldError{File: file, Line: lineOf(child(node, "tls"), "key"), Field: "bus.tls.key", Msg: err.Error()})
	}
	if (b.TLS.Cert == "") != (b.TLS.Key == "") {
		p.add(&FieldError{File: file, Line: lineOf(node, "tls"), Field: "bus.tls", Msg: "cert and key go together: give both, or neither"})
	}
}

// urlHasSecret reports whether one of the NATS URLs names a user (a token
// or a password with it).
func urlHasSecret(s string) bool {
	for _, one := range strings.Split(s, ",") {
		if u, err := url.Parse(strings.TrimSpace(one)); err == nil && u.User != nil {
			return true
		}
	}
	return false
}

// CheckNATSURL checks a NATS URL (or a comma-separated list of them); ""
// is no NATS.
func CheckNATSURL(s string) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	for _, one := range strings.Split(s, ",") {
		one = strings.TrimSpace(one)
		u, err := url.Parse(one)
		if err != nil || u.Host == "" {
			return fmt.Errorf("%q is not a NATS URL; write nats://HOST:PORT (or tls://, ws://, wss://)", one)
		}
		switch u.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return fmt.Errorf("%q: NATS URLs start with nats://, tls://, ws:// or wss://", one)
		}
	}
	return nil
}

// CheckListen checks the address of the console's own NATS server; "" is
// none.
func CheckListen(s string) error {
	if s == "" {
		return nil
	}
	if _, port, err := net.SplitHostPort(s); err != nil || port == "" {
		return fmt.Errorf("%q is not HOST:PORT (e.g. 0.0.0.0:4222, or 127.0.0.1:4222 for this machine only)", s)
	}
	return nil
}
