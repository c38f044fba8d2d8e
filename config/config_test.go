package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/all"
	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/settings"
)

// buildSet is the build's benchmarks: the example configurations set every
// benchmark's keys.
func buildSet(t testing.TB) bench.Set {
	set, err := all.Set()
	require.NoError(t, err)
	return set
}

func TestExampleConfigsLoad(t *testing.T) {
	for _, f := range []string{"../clinevo.example.yaml", "../clinevo.models.example.yaml"} {
		t.Run(f, func(t *testing.T) {
			c, err := config.Load(config.New(buildSet(t)), f, buildSet(t))
			require.NoError(t, err)
			require.Equal(t, 10, c.Settings.Episode.MaxTurns)
		})
	}
	c, err := config.Load(config.New(buildSet(t)), "../clinevo.models.example.yaml", buildSet(t))
	require.NoError(t, err)
	require.Equal(t, settings.OpenAI, c.Settings.Roles["doctor"].Backend)
	require.NotEqual(t, settings.OpenAI, c.Settings.Roles["patient"].Backend, "a mixed configuration: model doctor, built-in patient")
	require.True(t, c.Settings.Roles["judge"].Cache)
	require.False(t, c.Settings.Roles["doctor"].Cache)
}

func TestRolesFromEnvironmentAndValidation(t *testing.T) {
	t.Setenv("CLINEVO_ROLES_DOCTOR_BACKEND", "openai")
	t.Setenv("CLINEVO_ROLES_DOCTOR_BASE_URL", "http://127.0.0.1:8000/v1")
	t.Setenv("CLINEVO_ROLES_DOCTOR_MODEL", "qwen2.5-7b-instruct")
	c, err := config.Load(config.New(buildSet(t)), "", buildSet(t))
	require.NoError(t, err)
	require.Equal(t, settings.OpenAI, c.Settings.Roles["doctor"].Backend)
	require.Equal(t, "qwen2.5-7b-instruct", c.Settings.Roles["doctor"].Model)
	require.Equal(t, "OPENAI_API_KEY", c.Settings.Roles["doctor"].APIKeyEnv)

	t.Setenv("CLINEVO_ROLES_DOCTOR_MODEL", "")
	_, err = config.Load(config.New(buildSet(t)), "", buildSet(t))
	require.ErrorContains(t, err, "roles.doctor.model is required")

	t.Setenv("CLINEVO_ROLES_DOCTOR_BACKEND", "builtin")
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("roles:\n  surgeon:\n    backend: openai\n"), 0o644))
	_, err = config.Load(config.New(buildSet(t)), bad, buildSet(t))
	require.ErrorContains(t, err, "roles.surgeon: unknown role")
	require.NoError(t, os.WriteFile(bad, []byte("evolver:\n  memory_budget: 0\n"), 0o644))
	_, err = config.Load(config.New(buildSet(t)), bad, buildSet(t))
	require.ErrorContains(t, err, "memory_budget (B_M) must be at least 1")
}

// TestSettingsComeFromEveryLayer checks that the run settings read the file,
// the environment and their defaults, with maps merged key by key.
func TestSettingsComeFromEveryLayer(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.yaml")
	require.NoError(t, os.WriteFile(f, []byte("profile: medinquire\nepisode:\n  prices: {cbc: 999}\n  mdt: off\nevolver:\n  card_kinds: [correction]\nroles:\n  doctor: {timeout: 90s}\n"), 0o644))
	t.Setenv("CLINEVO_EPISODE_MAX_TURNS", "6")
	c, err := config.Load(config.New(buildSet(t)), f, buildSet(t))
	require.NoError(t, err)
	s := c.Settings
	require.Equal(t, "medinquire", s.Benchmark)
	require.Equal(t, 6, s.Episode.MaxTurns)
	require.Equal(t, 999.0, s.Episode.Prices["cbc"])
	require.Equal(t, 500.0, s.Episode.Prices["ct"], "the other prices keep their defaults")
	require.Equal(t, settings.MDTOff, s.Episode.MDT)
	require.Equal(t, []string{"correction"}, s.Evolver.CardKinds)
	require.Equal(t, settings.Duration(90*time.Second), s.Roles["doctor"].Timeout)
	require.Equal(t, settings.Builtin, s.Roles["doctor"].Backend, "the rest of the role keeps its defaults")
	def := buildSet(t).DefaultSettings()
	for k, v := range def.Episode.Ext {
		if v == nil {
			delete(def.Episode.Ext, k) // viper keeps no key whose default is null
		}
	}
	def.Benchmark, def.Episode.MaxTurns, def.Episode.MDT, def.Evolver.CardKinds = s.Benchmark, 6, settings.MDTOff, []string{"correction"}
	def.Episode.Prices["cbc"] = 999
	r := def.Roles["doctor"]
	r.Timeout = settings.Duration(90 * time.Second)
	def.Roles["doctor"] = r
	require.Equal(t, def, s, "everything else is the default")

	require.NoError(t, os.WriteFile(f, []byte("episode:\n  prices: {unobtainium: 5}\n"), 0o644))
	_, err = config.Load(config.New(buildSet(t)), f, buildSet(t))
	require.ErrorContains(t, err, "episode.prices.unobtainium: unknown price category")
}

func TestResultsFromEnvironment(t *testing.T) {
	c, err := config.Load(config.New(buildSet(t)), "../clinevo.example.yaml", buildSet(t))
	require.NoError(t, err)
	require.Equal(t, "sqlite", c.Results.Backend)
	require.Nil(t, c.PostgresOptions(), "sqlite: the embedded results.db")

	const pw = "pg-secret-5e6f"
	t.Setenv("CLINEVO_RESULTS_BACKEND", "postgres")
	t.Setenv("CLINEVO_RESULTS_POSTGRES_DSN", "postgres://clinevo@db:5432/clinevo")
	t.Setenv("CLINEVO_RESULTS_POSTGRES_PASSWORD_ENV", "CLINEVO_TEST_RESULTS_PW")
	t.Setenv("CLINEVO_TEST_RESULTS_PW", pw)
	c, err = config.Load(config.New(buildSet(t)), "", buildSet(t))
	require.NoError(t, err)
	o := c.PostgresOptions()
	require.NotNil(t, o)
	require.Equal(t, "postgres://clinevo@db:5432/clinevo", o.DSN)
	require.Equal(t, pw, o.Password, "the password comes from the variable password_env names")
}

func TestResultsValidation(t *testing.T) {
	const pw = "pg-secret-5e6f"
	for _, c := range []struct{ file, want string }{
		{"results:\n  backend: mysql\n", `results.backend "mysql", want sqlite or postgres`},
		{"results:\n  backend: postgres\n  postgres:\n    dsn: \"\"\n", "results.postgres.dsn is required when results.backend is postgres"},
		{"results:\n  backend: postgres\n  postgres:\n    dsn: postgres://clinevo:" + pw + "@db/clinevo\n", "results.postgres.dsn: the DSN holds a password"},
		{"results:\n  postgres:\n    dsn: host=db password=" + pw + "\n", "results.postgres.dsn: the DSN holds a password"},
	} {
		t.Run(c.want, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "c.yaml")
			require.NoError(t, os.WriteFile(f, []byte(c.file), 0o644))
			_, err := config.Load(config.New(buildSet(t)), f, buildSet(t))
			require.ErrorContains(t, err, c.want)
			require.NotContains(t, err.Error(), pw, "the error never repeats the password")
		})
	}
}

func TestTemporalKeys(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.yaml")
	require.NoError(t, os.WriteFile(f, []byte(`temporal:
  address: clinevo.a1b2c.tmprl.cloud:7233
  namespace: clinevo.a1b2c
  tls:
    ca_file: /etc/clinevo/ca.pem
    cert_file: /etc/clinevo/client.pem
    key_file: /etc/clinevo/client.key
    server_name: frontend.internal
  api_key_env: TEMPORAL_API_KEY
`), 0o644))
	c, err := config.Load(config.New(buildSet(t)), f, buildSet(t))
	require.NoError(t, err)
	require.Equal(t, config.TemporalConfig{Address: "clinevo.a1b2c.tmprl.cloud:7233", Namespace: "clinevo.a1b2c", TaskQueue: "clinevo",
		TLS: config.TemporalTLS{CAFile: "/etc/clinevo/ca.pem", CertFile: "/etc/clinevo/client.pem", KeyFile: "/etc/clinevo/client.key",
			ServerName: "frontend.internal"}, APIKeyEnv: "TEMPORAL_API_KEY"}, c.Temporal)

	for _, c := range []struct{ file, want string }{
		{"temporal:\n  tls:\n    cert_file: /etc/clinevo/client.pem\n", "temporal.tls.cert_file and temporal.tls.key_file go together"},
		{"temporal:\n  tls:\n    key_file: /etc/clinevo/client.key\n", "temporal.tls.cert_file and temporal.tls.key_file go together"},
		{"temporal:\n  namespace: \"\"\n", "temporal.namespace is required"},
	} {
		t.Run(c.want, func(t *testing.T) {
			require.NoError(t, os.WriteFile(f, []byte(c.file), 0o644))
			_, err := config.Load(config.New(buildSet(t)), f, buildSet(t))
			require.ErrorContains(t, err, c.want)
		})
	}
}

// TestUnknownKeysAreRefused: a key clinevo does not read (a typo, a renamed
// key) is an error naming it and the file, not silently ignored.
func TestUnknownKeysAreRefused(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"episode:\n  allow_mdt: false\n", "unknown key episode.allow_mdt"},
		{"evolver:\n  success_cards: false\n  rule_budgt: 3\n", "unknown key evolver.rule_budgt, evolver.success_cards"},
		{"roles:\n  doctor:\n    modle: gpt\n", "unknown key roles.doctor.modle"},
		{"temporal:\n  adress: db:7233\n", "unknown key temporal.adress"},
	} {
		f := filepath.Join(t.TempDir(), "c.yaml")
		require.NoError(t, os.WriteFile(f, []byte(c.file), 0o644))
		_, err := config.Load(config.New(buildSet(t)), f, buildSet(t))
		require.ErrorContains(t, err, "config "+f+": "+c.want)
	}
	f := filepath.Join(t.TempDir(), "c.yaml")
	require.NoError(t, os.WriteFile(f, []byte("profile: gpagent\nepisode:\n  actions: [ask, diagnose, treat]\n  prices: {ct: 450}\n"), 0o644))
	_, err := config.Load(config.New(buildSet(t)), f, buildSet(t))
	require.NoError(t, err)
}

// TestWrongTypesNameTheirSource: a value of the wrong type is refused, naming
// the key, the file or variable it came from and what the key takes; a
// fractional number for a whole-number key is not truncated.
func TestWrongTypesNameTheirSource(t *testing.T) {
	f := filepath.Join(t.TempDir(), "clinevo.yaml")
	for _, tc := range []struct {
		name, file string
		env        map[string]string
		want       string
	}{
		{"a fraction for a whole number", "memory:\n  k: 3.7\n", nil, "config " + f + ": memory.k: want a whole number, got 3.7"},
		{"a text for a whole number", "evolver:\n  rule_budget: many\n", nil, `config ` + f + `: evolver.rule_budget: want a whole number, got "many"`},
		{"a text for a number", "scoring:\n  lambda: half\n", nil, `config ` + f + `: scoring.lambda: want a number, got "half"`},
		{"a bad duration", "durability:\n  max_outage: a day\n", nil, `config ` + f + `: durability.max_outage: duration "a day": want a value like 60s or 2m`},
		{"a bad role field", "roles:\n  doctor:\n    max_tokens: 1.5\n", nil, "config " + f + ": roles.doctor.max_tokens: want a whole number, got 1.5"},
		{"a bad price", "episode:\n  prices:\n    cbc: cheap\n", nil, `config ` + f + `: episode.prices.cbc: want a number, got "cheap"`},
		{"a variable", "", map[string]string{"CLINEVO_MEMORY_K": "3.7"}, `environment variable CLINEVO_MEMORY_K: memory.k: want a whole number, got "3.7"`},
		{"a variable for a flag", "", map[string]string{"CLINEVO_TELEMETRY_INSECURE": "maybe"}, `environment variable CLINEVO_TELEMETRY_INSECURE: telemetry.insecure: want true or false, got "maybe"`},
		{"a bad log level", "log:\n  level: loud\n", nil, `config: log.level (or --log-level) "loud", want one of debug, info, warn, error`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			file := ""
			if tc.file != "" {
				require.NoError(t, os.WriteFile(f, []byte(tc.file), 0o644))
				file = f
			}
			_, err := config.Load(config.New(buildSet(t)), file, buildSet(t))
			require.EqualError(t, err, tc.want)
		})
	}
	require.NoError(t, os.WriteFile(f, []byte("memory:\n  k: 3.0\ndurability:\n  max_outage: 2h\n  max_backoff: 5s\n"), 0o644))
	t.Setenv("CLINEVO_EVOLVER_RULE_BUDGET", "4")
	c, err := config.Load(config.New(buildSet(t)), f, buildSet(t))
	require.NoError(t, err)
	require.Equal(t, 3, c.Settings.Memory.K, "a whole number written as 3.0 is 3")
	require.Equal(t, 4, c.Settings.Evolver.RuleBudget)
	require.Equal(t, settings.Durability{MaxOutage: settings.Duration(2 * time.Hour), MaxBackoff: settings.Duration(5 * time.Second)}, c.Settings.Durability)
	require.Equal(t, "info", c.Log.Level, "the default level")
}

// TestConfigNumbersAreBounded (issue 37, items 6, 10 and 12): a number out
// of its range, or not finite (.inf in YAML used to fail with the JSON
// encoder's words and no key), and a file that is not a configuration at
// all are refused naming the file, the key or the line, and what is wrong.
func TestConfigNumbersAreBounded(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"a huge memory.dim", "memory:\n  dim: 1000000000\n", "config: memory.dim must be at least 16 and at most 65536, got 1000000000"},
		{"a port beyond 65535", "memory:\n  qdrant: {port: 70000}\n", "config: memory.qdrant.port must be at least 1 and at most 65535, got 70000"},
		{"an infinite weight", "scoring:\n  lambda: .inf\n", "config FILE: scoring.lambda: want a finite number, got +Inf"},
		{"not a number", "scoring:\n  lambda: .nan\n", "config FILE: scoring.lambda: want a finite number, got NaN"},
		{"huge k", "memory:\n  k: 100000\n", "config: memory.k must be at least 0 and at most 1000, got 100000"},
		{"huge max tokens", "roles:\n  doctor: {max_tokens: 99999999}\n", "config: roles.doctor.max_tokens must be at least 0 and at most 1000000, got 99999999"},
		{"garbage", "episode: [unclosed\n", "config FILE: While parsing config: yaml: line 1: did not find expected ',' or ']'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "c.yaml")
			require.NoError(t, os.WriteFile(f, []byte(tc.file), 0o644))
			_, err := config.Load(config.New(buildSet(t)), f, buildSet(t))
			require.EqualError(t, err, strings.ReplaceAll(tc.want, "FILE", f))
		})
	}
}
