package llm

import (
	"fmt"
	"sort"
	"strings"
)

// Role names, each configurable as roles.<name> in the config file.
var RoleNames = []string{"doctor", "patient", "exam", "consultant", "judge", "grader", "evolver", "embeddings"}

// Backends of a role.
const (
	Builtin = "builtin"
	OpenAI  = "openai"
)

// RoleSpec chooses a role's backend and, for a model, its settings.
type RoleSpec struct {
	Backend  string `mapstructure:"backend" json:"backend"`
	Settings `mapstructure:",squash"`
}

// Roles maps role names to their specs.
type Roles map[string]RoleSpec

// Validate names the first bad role.
func (r Roles) Validate() error {
	names := make([]string, 0, len(r))
	for name := range r {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		spec := r[name]
		known := false
		for _, n := range RoleNames {
			known = known || n == name
		}
		if !known {
			return fmt.Errorf("roles.%s: unknown role, want one of %s", name, strings.Join(RoleNames, ", "))
		}
		switch spec.Backend {
		case "", Builtin:
		case OpenAI:
			if err := spec.Settings.Validate(name); err != nil {
				return err
			}
			if name == "embeddings" && spec.Dim < 1 {
				return fmt.Errorf("roles.embeddings.dim is required for a model embedder (the bank stores it)")
			}
		default:
			return fmt.Errorf("roles.%s.backend %q, want builtin or openai", name, spec.Backend)
		}
	}
	return nil
}

// Model reports whether a role runs on a model.
func (r Roles) Model(name string) bool { return r[name].Backend == OpenAI }

// Describe lists every role's backend, model, decoding settings, template
// version and cache use, for run logs. It never includes a key.
func (r Roles) Describe() []string {
	var out []string
	for _, name := range RoleNames {
		s, ok := r[name]
		if !ok || s.Backend != OpenAI {
			out = append(out, name+": builtin")
			continue
		}
		out = append(out, fmt.Sprintf("%s: model %s at %s, temperature %g, top_p %g, max_tokens %d, json_mode %v, template %s, cache %v",
			name, s.Model, s.BaseURL, s.Temperature, s.TopP, s.MaxTokens, s.JSONMode, TemplateVersions[name], s.Cache && s.Temperature == 0))
	}
	sort.Strings(out)
	return out
}
