package all_test

import (
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/all"
	"github.com/clinevo/clinevo/costplan"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
)

// The tests of the build's whole set: what no one benchmark's folder can
// check alone.

func buildSet(t *testing.T) bench.Set {
	set, err := all.Set()
	require.NoError(t, err, "every benchmark has a name of its own")
	return set
}

// Every spec file of the shared folder and of the benchmarks' folders loads
// against the build's benchmarks, and is one the binary ships.
func TestShippedSpecsAreValid(t *testing.T) {
	set := buildSet(t)
	files, err := filepath.Glob("../../experiments/*.yaml")
	require.NoError(t, err)
	benchFiles, err := filepath.Glob("../*/*.yaml")
	require.NoError(t, err)
	files = append(files, benchFiles...)
	shipped := experiments.Shipped(set)
	require.Len(t, files, len(shipped), "every spec file is shipped, and no other")
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			spec, err := experiments.Load(path, set.DefaultSettings(), set)
			require.NoError(t, err)
			require.NotEmpty(t, spec.Conditions)
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, string(b), string(shipped[name]), "the binary ships the file as it is")
		})
	}
}

// TestPlanShippedSpecs: every shipped spec plans, with every role of its
// conditions' benchmarks, episodes and no negative figure.
func TestPlanShippedSpecs(t *testing.T) {
	set := buildSet(t)
	shipped := experiments.Shipped(set)
	names := make([]string, 0, len(shipped))
	for n := range shipped {
		names = append(names, n)
	}
	sort.Strings(names)
	require.NotEmpty(t, names)
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			spec, err := experiments.Parse(n, shipped[n], set.DefaultSettings(), set)
			require.NoError(t, err)
			p, err := costplan.Experiment(set, spec, costplan.History{})
			require.NoError(t, err)
			require.Len(t, p.Conditions, len(spec.Conditions))
			for i, c := range p.Conditions {
				s, err := spec.SettingsOf(i)
				require.NoError(t, err)
				b, err := set.Of(s)
				require.NoError(t, err)
				require.Positive(t, c.Episodes+c.EvalEpisodes, c.Name)
				require.Len(t, c.Roles, len(bench.RunRoles(b)), "%s: every role of %s", c.Name, b.Name())
				for _, r := range c.Roles {
					require.GreaterOrEqual(t, r.Calls, 0.0)
					require.GreaterOrEqual(t, r.CostUSD, 0.0)
				}
			}
			require.Positive(t, p.WallSeconds)
		})
	}
}

// The run log names the templates a profile renders, not the MedEvoEval ones
// for every profile.
func TestDescribeNamesTheProfileTemplates(t *testing.T) {
	want := map[string][2]string{
		settings.MedEvoEval: {"template doctor/4,", "template judge/1,"},
		"medinquire":        {"template doctor/4,", "template judge_grade/1,"},
		"gpagent":           {"template doctor_gp/1,", "template judge_dx/1 + judge_tx/1,"},
		"klinike":           {"template doctor_tools/1,", "template judge_grade/1 + judge_mustask/1,"},
		"sdbench":           {"template sd_doctor/1 + sd_panel/1,", "template sd_judge_likert/2,"},
		"ddxplus":           {"template doctor_ddxplus/1,", "template judge/1,"},
	}
	set := buildSet(t)
	require.Len(t, want, len(set.Names()))
	for _, b := range set.All() {
		profile := b.Name()
		s := settings.Default()
		s.Benchmark = profile
		s.Roles = settings.Roles{
			"doctor": {Backend: settings.OpenAI, Model: "m", BaseURL: "http://127.0.0.1:1/v1"},
			"judge":  {Backend: settings.OpenAI, Model: "m", BaseURL: "http://127.0.0.1:1/v1"},
		}
		lines := llm.Describe(b, s)
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

// TestTextbookDoctorOnlyWhereItCanPlay: settings that choose the textbook
// doctor are refused when they are validated (a spec's parse, a config's
// load) for exactly the benchmarks with a built-in doctor of their own
// (gpagent, klinike, ddxplus); before, such a run started and retried its
// first decision for ever.
func TestTextbookDoctorOnlyWhereItCanPlay(t *testing.T) {
	set := buildSet(t)
	var refused []string
	for _, b := range set.All() {
		s := benchtest.Settings(b)
		s.Roles = maps.Clone(s.Roles)
		s.Roles["doctor"] = settings.Role{Backend: settings.Builtin, Model: settings.TextbookDoctor}
		err := set.ValidateSettings(s)
		if err != nil {
			require.ErrorContains(t, err, "roles.doctor.model textbook", b.Name())
			require.ErrorContains(t, err, "benchmark "+b.Name()+" has its own built-in doctor")
			refused = append(refused, b.Name())
		}
	}
	sort.Strings(refused)
	require.Equal(t, []string{"ddxplus", "gpagent", "klinike"}, refused)
}
