package main

import (
	"strings"

	"github.com/teamlead/teamlead/internal/fakemodel"
)

// opencode runs OpenCode with a private HOME prepared by
// fakemodel.PrepareOpenCode: a provider of its global config at the fake
// model, bash and edits asked about, npm pointed nowhere.
type opencode struct{}

func (opencode) name() string { return "opencode" }

func (opencode) setup(home, project, baseURL string) (env, args []string, err error) {
	env, err = fakemodel.PrepareOpenCode(home, project, baseURL, "")
	return env, nil, err
}

func (o opencode) ready(s string) (bool, error) {
	if o.busy(s) || o.dialog(s) {
		return false, nil
	}
	return strings.Contains(s, "ctrl+p commands"), nil
}

func (opencode) submit() string { return "\r" }

func (opencode) busy(s string) bool { return strings.Contains(s, "esc interrupt") }

func (opencode) dialog(s string) bool { return looksLikeDialog(s) }

func (opencode) preset() string { return "opencode" }
