package settings_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/settings"
)

// TestGPAgentActions checks episode.actions for the gpagent profile: a
// subset of the six that holds diagnose and treat (the action-space ablation
// of GPAgentBench §5.1), each once; another profile, which would ignore it,
// refuses it.
func TestGPAgentActions(t *testing.T) {
	tests := []struct {
		profile string
		actions []string
		want    string // "": valid
	}{
		{settings.GPAgent, nil, ""},
		{settings.GPAgent, []string{"diagnose", "treat"}, ""},
		{settings.GPAgent, []string{"ask", "test", "body_exam", "refer", "diagnose", "treat"}, ""},
		{settings.GPAgent, []string{"diagnose", "treat", "finalize"}, `episode.actions[2] "finalize", want one of ask, body_exam, test, diagnose, refer, treat`},
		{settings.GPAgent, []string{"diagnose", "treat", "ask", "ask"}, `episode.actions[3] "ask" is listed twice`},
		{settings.GPAgent, []string{"ask", "treat"}, "episode.actions must hold diagnose"},
		{settings.GPAgent, []string{"DIAGNOSE", "treat"}, `episode.actions[0] "DIAGNOSE"`},
		{settings.MedEvoEval, []string{"diagnose", "treat"}, "episode.actions applies to the gpagent profile only (profile is medevoeval)"},
		{settings.MedEvoEval, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.profile+" "+strings.Join(tc.actions, ","), func(t *testing.T) {
			s := settings.Default()
			s.Profile, s.Episode.Actions = tc.profile, tc.actions
			err := s.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}
