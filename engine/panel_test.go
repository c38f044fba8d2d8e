package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
)

// TestPanelRoles: doctor.mode panel makes the run's doctor the panel, for
// any benchmark: built-in with a built-in doctor, and on roles.doctor's
// model with one client per panel role named doctor.<role> (its use counted
// per role); the panel defers to the benchmark's own doctor.
func TestPanelRoles(t *testing.T) {
	for _, profile := range []string{sdbench.Name, "gpagent"} {
		s := settings.Default()
		s.Benchmark, s.Doctor.Mode = profile, settings.PanelDoctor
		r, err := engine.RolesFor(s, llm.Options{})
		require.NoError(t, err)
		p, ok := r.Doctor.(actor.Panel)
		require.True(t, ok, "%s: %T", profile, r.Doctor)
		require.Len(t, p.Members, len(actor.PanelRoles))
		require.NotNil(t, p.Base)

		s.Roles["doctor"] = settings.Role{Backend: settings.OpenAI, BaseURL: "http://127.0.0.1:1/v1", Model: "m", APIKeyEnv: "CLINEVO_NO_KEY"}
		r, err = engine.RolesFor(s, llm.Options{})
		require.NoError(t, err)
		p = r.Doctor.(actor.Panel)
		for _, role := range actor.PanelRoles {
			m, ok := p.Members[role].(llm.PanelMember)
			require.True(t, ok, role)
			require.Equal(t, "doctor."+role, m.C.Role)
		}
	}
}
