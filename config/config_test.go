package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/llm"
)

func TestExampleConfigsLoad(t *testing.T) {
	for _, f := range []string{"../clinevo.example.yaml", "../clinevo.models.example.yaml"} {
		t.Run(f, func(t *testing.T) {
			c, err := config.Load(config.New(), f)
			require.NoError(t, err)
			require.Equal(t, 10, c.Episode.MaxTurns)
		})
	}
	c, err := config.Load(config.New(), "../clinevo.models.example.yaml")
	require.NoError(t, err)
	require.True(t, c.Roles.Model("doctor"))
	require.False(t, c.Roles.Model("patient"), "a mixed configuration: model doctor, built-in patient")
	require.True(t, c.Roles["judge"].Cache)
	require.False(t, c.Roles["doctor"].Cache)
}

func TestRolesFromEnvironmentAndValidation(t *testing.T) {
	t.Setenv("CLINEVO_ROLES_DOCTOR_BACKEND", "openai")
	t.Setenv("CLINEVO_ROLES_DOCTOR_BASE_URL", "http://127.0.0.1:8000/v1")
	t.Setenv("CLINEVO_ROLES_DOCTOR_MODEL", "qwen2.5-7b-instruct")
	c, err := config.Load(config.New(), "")
	require.NoError(t, err)
	require.Equal(t, llm.OpenAI, c.Roles["doctor"].Backend)
	require.Equal(t, "qwen2.5-7b-instruct", c.Roles["doctor"].Model)
	require.Equal(t, "OPENAI_API_KEY", c.Roles["doctor"].APIKeyEnv)

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
