// Package configs holds teamlead's default configuration files; the
// built-in presets are embedded in the binary from here.
package configs

import "embed"

// Presets is the text of presets.yaml: how to talk to each known agent CLI.
//
//go:embed presets.yaml
var Presets []byte

// Consultations is the text of consultations.yaml: the mandatory
// consultation rules and the matrix of optional ones.
//
//go:embed consultations.yaml
var Consultations []byte

// Permissions is the text of permissions.yaml: the built-in permission
// policy (what agents may do unasked, what is asked, what is denied).
//
//go:embed permissions.yaml
var Permissions []byte

// Answerers is the text of answerers.yaml: seed 004's example routes.
//
//go:embed answerers.yaml
var Answerers []byte

// Demo holds the demo team's mockagent scripts (demo/*.mock).
//
//go:embed demo/*.mock
var Demo embed.FS
