package llm

import (
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/settings"
)

// Describe lists every role of a run of benchmark b (bench.RunRoles) with
// its backend, model, decoding settings, template version and cache use,
// for run logs. It never includes a key.
func Describe(b bench.Benchmark, set settings.Settings) []string {
	var out []string
	for _, name := range bench.RunRoles(b) {
		s, ok := set.Roles[name]
		if !ok || s.Backend != settings.OpenAI {
			out = append(out, name+": builtin")
			continue
		}
		templates := RoleTemplates(b, name)
		if ts := MethodTemplates(set.Evolver.MethodName()); name == "evolver" && ts != nil {
			templates = ts // the learning method's prompts, not clinevo's evolver's
		}
		out = append(out, fmt.Sprintf("%s: model %s at %s (provider %s), temperature %g, top_p %g, max_tokens %d, json_mode %v, format %s, template %s, cache %v",
			name, s.Model, s.Endpoint(), s.ProviderName(), s.Temperature, s.TopP, s.MaxTokens, s.JSONMode, s.Format, strings.Join(templates, " + "), s.Cache && s.Temperature == 0))
	}
	return out
}
