package config_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/settings"
)

func TestExampleConfigsLoad(t *testing.T) {
	for _, f := range []string{"../clinevo.example.yaml", "../clinevo.models.example.yaml"} {
		t.Run(f, func(t *testing.T) {
			c, err := config.Load(config.New(), f)
			require.NoError(t, err)
			require.Equal(t, 10, c.Settings.Episode.MaxTurns)
		})
	}
	c, err := config.Load(config.New(), "../clinevo.models.example.yaml")
	require.NoError(t, err)
	require.True(t, c.Settings.Roles.Model("doctor"))
	require.False(t, c.Settings.Roles.Model("patient"), "a mixed configuration: model doctor, built-in patient")
	require.True(t, c.Settings.Roles["judge"].Cache)
	require.False(t, c.Settings.Roles["doctor"].Cache)
}

func TestRolesFromEnvironmentAndValidation(t *testing.T) {
	t.Setenv("CLINEVO_ROLES_DOCTOR_BACKEND", "openai")
	t.Setenv("CLINEVO_ROLES_DOCTOR_BASE_URL", "http://127.0.0.1:8000/v1")
	t.Setenv("CLINEVO_ROLES_DOCTOR_MODEL", "qwen2.5-7b-instruct")
	c, err := config.Load(config.New(), "")
	require.NoError(t, err)
	require.Equal(t, settings.OpenAI, c.Settings.Roles["doctor"].Backend)
	require.Equal(t, "qwen2.5-7b-instruct", c.Settings.Roles["doctor"].Model)
	require.Equal(t, "OPENAI_API_KEY", c.Settings.Roles["doctor"].APIKeyEnv)

	t.Setenv("CLINEVO_ROLES_DOCTOR_MODEL", "")
	_, err = config.Load(config.New(), "")
	require.ErrorContains(t, err, "roles.doctor.model is required")

	t.Setenv("CLINEVO_ROLES_DOCTOR_BACKEND", "builtin")
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("roles:\n  surgeon:\n    backend: openai\n"), 0o644))
	_, err = config.Load(config.New(), bad)
	require.ErrorContains(t, err, "roles.surgeon: unknown role")
	require.NoError(t, os.WriteFile(bad, []byte("evolver:\n  memory_budget: 0\n"), 0o644))
	_, err = config.Load(config.New(), bad)
	require.ErrorContains(t, err, "memory_budget (B_M) must be at least 1")
}

// TestSettingsComeFromEveryLayer checks that the run settings read the file,
// the environment and their defaults, with maps merged key by key.
func TestSettingsComeFromEveryLayer(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.yaml")
	require.NoError(t, os.WriteFile(f, []byte("profile: medinquire\nepisode:\n  prices: {cbc: 999}\n  mdt: off\nevolver:\n  card_kinds: [correction]\nroles:\n  doctor: {timeout: 90s}\n"), 0o644))
	t.Setenv("CLINEVO_EPISODE_MAX_TURNS", "6")
	c, err := config.Load(config.New(), f)
	require.NoError(t, err)
	s := c.Settings
	require.Equal(t, settings.MedInquire, s.Profile)
	require.Equal(t, 6, s.Episode.MaxTurns)
	require.Equal(t, 999.0, s.Episode.Prices["cbc"])
	require.Equal(t, 500.0, s.Episode.Prices["ct"], "the other prices keep their defaults")
	require.Equal(t, settings.MDTOff, s.Episode.MDT)
	require.Equal(t, []string{"correction"}, s.Evolver.CardKinds)
	require.Equal(t, settings.Duration(90*time.Second), s.Roles["doctor"].Timeout)
	require.Equal(t, settings.Builtin, s.Roles["doctor"].Backend, "the rest of the role keeps its defaults")
	def := settings.Default()
	def.Profile, def.Episode.MaxTurns, def.Episode.MDT, def.Evolver.CardKinds = s.Profile, 6, settings.MDTOff, []string{"correction"}
	def.Episode.Prices["cbc"] = 999
	r := def.Roles["doctor"]
	r.Timeout = settings.Duration(90 * time.Second)
	def.Roles["doctor"] = r
	require.Equal(t, def, s, "everything else is the default")

	require.NoError(t, os.WriteFile(f, []byte("episode:\n  prices: {unobtainium: 5}\n"), 0o644))
	_, err = config.Load(config.New(), f)
	require.ErrorContains(t, err, "episode.prices.unobtainium: unknown price category")
}
