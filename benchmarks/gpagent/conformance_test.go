package gpagent_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// TestConformance runs the conformance suite on the GP workflow: the default
// run (all six actions) and the action-space ablation's sets A2–A5 (§5.1,
// Figure 3), on cases needing referral and manageable ones of the stream and
// the held-out split.
func TestConformance(t *testing.T) {
	t.Parallel()
	base := gpSettings()
	runs := []settings.Settings{base}
	for _, actions := range [][]string{
		{"diagnose", "treat"},                             // A2
		{"ask", "diagnose", "treat"},                      // A3
		{"ask", "test", "diagnose", "treat"},              // A4
		{"ask", "test", "body_exam", "diagnose", "treat"}, // A5
	} {
		runs = append(runs, withEpisode(t, base, "actions", actions))
	}
	benchtest.Run(t, gpagent.Benchmark{}, benchtest.Config{
		Settings: runs,
		Cases:    sampleCases(t),
		Moves:    moves,
		BadSettings: []benchtest.Bad[settings.Overrides]{
			{Name: "an action the workflow does not have", Input: episodeKey("actions", []string{"diagnose", "treat", "fly"}), Want: `episode.actions[2] "fly"`},
			{Name: "an action set without treat", Input: episodeKey("actions", []string{"ask", "diagnose"}), Want: "episode.actions must hold treat"},
			{Name: "an action listed twice", Input: episodeKey("actions", []string{"diagnose", "treat", "treat"}), Want: `episode.actions[2] "treat" is listed twice`},
			{Name: "a negative c_workflow", Input: episodeKey("workflow_penalty", -1), Want: "episode.workflow_penalty"},
			{Name: "a c_timeout that is no number", Input: episodeKey("timeout_penalty", "soon"), Want: "episode.timeout_penalty"},
		},
		BadCases: []benchtest.Bad[func(*clinic.Case)]{
			{Name: "an unknown management label", Input: func(c *clinic.Case) { setLabel(c, "observe") }, Want: "manager_view.management_label"},
			{Name: "a refer case without a needed referral", Input: func(c *clinic.Case) { c.Manager.Referral.Needed = false }, Want: "manager_view.referral.needed"},
			{Name: "a refer case without a destination", Input: func(c *clinic.Case) { c.Manager.Referral.Destination = "" }, Want: "manager_view.referral.destination"},
			{Name: "a manage case needing referral", Input: func(c *clinic.Case) { setLabel(c, gpagent.PathwayManage) }, Want: "manager_view.referral.needed"},
			{Name: "an empty red flag", Input: func(c *clinic.Case) { c.Manager.Referral.RedFlags = []string{""} }, Want: "manager_view.referral.red_flags[0]"},
		},
		Hidden: []reflect.Type{reflect.TypeFor[gpagent.Management](), reflect.TypeFor[gpagent.Key]()},
		View:   reflect.TypeFor[gpagent.View](),
	})
}

func episodeKey(key string, v any) settings.Overrides {
	return settings.Overrides{"episode": map[string]any{key: v}}
}

// sampleCases are cases of both labels from the stream and the held-out
// split, a case needing referral first (the bad cases change it).
func sampleCases(t *testing.T) []clinic.Case {
	var out []clinic.Case
	for _, ref := range []string{"builtin:gp@7", "builtin:gp-heldout@7"} {
		cp, err := benchtest.Library(gpagent.Benchmark{}).Load(ref)
		require.NoError(t, err)
		n := map[string]int{}
		for _, c := range cp.Cases {
			if label := gpagent.Pathway(&c); n[label] < 3 {
				n[label]++
				out = append(out, c)
			}
		}
	}
	for i, c := range out {
		if gpagent.Pathway(&c) == gpagent.PathwayRefer {
			out[0], out[i] = out[i], out[0]
			break
		}
	}
	return out
}

// moves are a valid output for each of the six actions: an examination
// target and a test the view lists, a diagnosis, a referral and a plan.
func moves(v clinic.DoctorView) []clinic.DoctorOutput {
	target, test := "vital signs", "complete blood count"
	if ts := gpagent.ViewOf(v).ExamTargets; len(ts) > 0 {
		target = ts[(v.Turn*5)%len(ts)]
	}
	if len(v.Catalog) > 0 {
		test = v.Catalog[(v.Turn*7)%len(v.Catalog)]
	}
	return []clinic.DoctorOutput{
		{Action: clinic.Ask, Question: "When did it start, and has anything like it happened before?"},
		gpagent.WithOutput(clinic.DoctorOutput{Action: gpagent.BodyExam}, gpagent.Output{Target: target}),
		{Action: clinic.RequestTest, TestName: test},
		{Action: gpagent.Diagnose, Diagnosis: []string{"viral illness"}},
		referTo("Emergency Department", "urgent"),
		{Action: gpagent.Treat, Diagnosis: []string{"viral illness"}, Plan: []string{"rest and fluids", "review in a week"}},
	}
}
