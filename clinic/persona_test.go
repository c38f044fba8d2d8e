package clinic_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
)

func TestPersonaLevels(t *testing.T) {
	tests := []struct {
		p                          clinic.Persona
		proficiency, dis, fidelity string
	}{
		{clinic.Persona{}, "advanced", "normal", "high"},
		{clinic.Persona{Language: "limited", Clarity: "confused", Recall: "low"}, "basic", "moderate", "low"},
		{clinic.Persona{Language: "intermediate", Disorientation: "high", Recall: "medium"}, "intermediate", "high", "high"},
		{clinic.Persona{Language: "fluent", Clarity: "confused", Disorientation: "normal"}, "advanced", "normal", "high"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.proficiency, tc.p.Proficiency(), "%+v", tc.p)
		require.Equal(t, tc.dis, tc.p.Disoriented(), "%+v", tc.p)
		require.Equal(t, tc.fidelity, tc.p.Fidelity(), "%+v", tc.p)
	}
}
