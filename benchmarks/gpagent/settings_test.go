package gpagent_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/settings"
)

// TestEpisodeKeys checks the benchmark's episode keys: episode.actions is a
// subset of the six that holds diagnose and treat (the action-space ablation
// of GPAgentBench §5.1), each once; the penalties are not negative; a value
// of the wrong type names its key.
func TestEpisodeKeys(t *testing.T) {
	tests := []struct {
		key  string
		v    any
		want string // "": valid
	}{
		{"actions", nil, ""},
		{"actions", []string{"diagnose", "treat"}, ""},
		{"actions", []string{"ask", "test", "body_exam", "refer", "diagnose", "treat"}, ""},
		{"actions", []string{"diagnose", "treat", "finalize"}, `episode.actions[2] "finalize", want one of ask, body_exam, test, diagnose, refer, treat`},
		{"actions", []string{"diagnose", "treat", "ask", "ask"}, `episode.actions[3] "ask" is listed twice`},
		{"actions", []string{"ask", "treat"}, "episode.actions must hold diagnose"},
		{"actions", []string{"DIAGNOSE", "treat"}, `episode.actions[0] "DIAGNOSE"`},
		{"actions", "diagnose, treat", ""}, // a comma-separated text, as an environment variable gives it
		{"workflow_penalty", 0, ""},
		{"workflow_penalty", -1, "episode.workflow_penalty and episode.timeout_penalty must not be negative"},
		{"timeout_penalty", -0.5, "episode.workflow_penalty and episode.timeout_penalty must not be negative"},
		{"timeout_penalty", "soon", `episode.timeout_penalty: want a number, got "soon"`},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s=%v", tc.key, tc.v), func(t *testing.T) {
			s := withEpisode(t, gpSettings(), tc.key, tc.v)
			err := benchtest.SetOf(t, gpagent.Benchmark{}).ValidateSettings(s)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestEpisodeDefaults checks the keys' defaults: all six actions, c_workflow
// and c_timeout 5 each; the defaults' keys are the configuration's.
func TestEpisodeDefaults(t *testing.T) {
	e, err := gpagent.EpisodeOf(settings.Default())
	require.NoError(t, err)
	require.Equal(t, gpagent.Episode{WorkflowPenalty: 5, TimeoutPenalty: 5}, e)
	require.Equal(t, gpagent.Actions, gpagent.Enabled(e))
	require.Equal(t, []string{"actions", "timeout_penalty", "workflow_penalty"}, settings.ExtKeys(gpagent.Benchmark{}.EpisodeDefaults()))
	d := benchtest.Settings(gpagent.Benchmark{})
	require.Equal(t, 5.0, d.Episode.Ext["workflow_penalty"])
	require.Equal(t, 5.0, d.Episode.Ext["timeout_penalty"])
}
