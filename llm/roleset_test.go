package llm_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
)

// The run log names the templates a profile renders, not the MedEvoEval ones
// for every profile.
func TestDescribeNamesTheProfileTemplates(t *testing.T) {
	want := map[string][2]string{
		settings.MedEvoEval: {"template doctor/3,", "template judge/1,"},
		"medinquire":        {"template doctor/3,", "template judge_grade/1,"},
		"gpagent":           {"template doctor_gp/1,", "template judge_dx/1 + judge_tx/1,"},
		"klinike":           {"template doctor_tools/1,", "template judge_grade/1 + judge_mustask/1,"},
		"sdbench":           {"template doctor/3,", "template sd_judge_likert/1,"},
		"ddxplus":           {"template doctor_ddxplus/1,", "template judge/1,"},
	}
	require.Len(t, want, len(bench.Names()))
	for _, profile := range bench.Names() {
		s := settings.Default()
		s.Profile = profile
		s.Roles = settings.Roles{
			"doctor": {Backend: settings.OpenAI, Model: "m", BaseURL: "http://127.0.0.1:1/v1"},
			"judge":  {Backend: settings.OpenAI, Model: "m", BaseURL: "http://127.0.0.1:1/v1"},
		}
		lines := llm.Describe(s)
		var doctor, judge string
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "doctor:"):
				doctor = l
			case strings.HasPrefix(l, "judge:"):
				judge = l
			}
		}
		require.Contains(t, doctor, want[profile][0], profile)
		require.Contains(t, judge, want[profile][1], profile)
		require.Contains(t, lines, "patient: builtin", profile)
	}
}

// Every template a benchmark's role renders has a version, and one of the
// shared roles is one the package holds (a benchmark's own, Prompts, are its
// tests' to check).
func TestRoleTemplatesExist(t *testing.T) {
	for _, b := range bench.All() {
		profile := b.Name()
		for _, role := range settings.RoleNames {
			names := llm.RoleTemplates(b, role)
			if role == "embeddings" {
				require.Empty(t, names)
				continue
			}
			require.NotEmpty(t, names, "%s %s", profile, role)
			own := false
			if p, ok := b.(llm.Prompts); ok {
				own = p.Templates(role) != nil
			}
			for _, v := range names {
				name, n, ok := strings.Cut(v, "/")
				require.True(t, ok && n != "?", "%s %s: version %q", profile, role, v)
				require.True(t, own || llm.HasTemplate(name), "%s %s: no template %s", profile, role, name)
			}
		}
	}
}
