package detect

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Sections are the parts of a preset the detectors are built from.
type Sections struct {
	// Permission is the preset's permission-dialog detector.
	Permission *PermissionSpec `yaml:"permission"`
	// State tells the preset's busy, idle and waiting screens apart.
	State *StateSpec `yaml:"state"`
}

// ParsePresets compiles the detector of every preset in a presets file
// (configs/presets.yaml's form: a `presets:` mapping of names to presets),
// reading only their permission and state sections. The configuration
// loader (internal/config) checks the rest of each preset.
func ParsePresets(data []byte) (map[string]*Detector, error) {
	var f struct {
		Presets map[string]Sections `yaml:"presets"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	out := make(map[string]*Detector, len(f.Presets))
	for name, s := range f.Presets {
		d, err := Compile(name, s.Permission, s.State)
		if err != nil {
			return nil, err
		}
		out[name] = d
	}
	return out, nil
}
