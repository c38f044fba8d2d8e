// Package deploy_test checks the deployment files: Docker is not available on
// our machines, so the compose file and the Dockerfile are validated by
// structure, and the worker's environment is loaded through the real config.
package deploy_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/server/common/dynamicconfig"
	"go.yaml.in/yaml/v3"

	"github.com/clinevo/clinevo/config"
)

type service struct {
	Image       string                                `yaml:"image"`
	Build       *struct{ Context, Dockerfile string } `yaml:"build"`
	Command     any                                   `yaml:"command"`
	Ports       []string                              `yaml:"ports"`
	Environment map[string]string                     `yaml:"environment"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Healthcheck *struct {
		Test     []string `yaml:"test"`
		Interval string   `yaml:"interval"`
		Timeout  string   `yaml:"timeout"`
		Retries  int      `yaml:"retries"`
	} `yaml:"healthcheck"`
	Volumes    []string `yaml:"volumes"`
	Entrypoint []string `yaml:"entrypoint"`
	Restart    string   `yaml:"restart"`
}

func TestComposeFile(t *testing.T) {
	b, err := os.ReadFile("../docker-compose.yml")
	require.NoError(t, err)
	var doc struct {
		Services map[string]service `yaml:"services"`
		Volumes  map[string]any     `yaml:"volumes"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&doc))

	for _, name := range []string{"postgresql", "temporal", "temporal-ui", "qdrant", "otel-collector", "worker"} {
		require.Contains(t, doc.Services, name)
		require.NotNil(t, doc.Services[name].Healthcheck, "%s has a health check", name)
		require.NotEmpty(t, doc.Services[name].Healthcheck.Test)
	}
	ports := map[string][]string{"temporal": {"7233:7233"}, "temporal-ui": {"8080:8080"}, "qdrant": {"6333:6333", "6334:6334"}, "otel-collector": {"4317:4317"}}
	for name, want := range ports {
		for _, p := range want {
			require.Contains(t, doc.Services[name].Ports, p, name)
		}
	}
	require.Equal(t, "postgres12", doc.Services["temporal"].Environment["DB"], "Temporal on PostgreSQL")
	require.Equal(t, "service_healthy", doc.Services["temporal"].DependsOn["postgresql"].Condition)

	w := doc.Services["worker"]
	require.NotNil(t, w.Build)
	require.Equal(t, "deploy/Dockerfile", w.Build.Dockerfile)
	require.Equal(t, []any{"worker", "--memory", "qdrant"}, w.Command)
	for _, dep := range []string{"temporal", "qdrant"} {
		require.Equal(t, "service_healthy", w.DependsOn[dep].Condition, "the worker waits for %s", dep)
	}
	require.Equal(t, "service_completed_successfully", w.DependsOn["temporal-setup"].Condition, "search attributes are registered first")
	setup, _ := doc.Services["temporal-setup"].Command.([]any)
	require.NotEmpty(t, setup)
	for _, sa := range []string{"ClinevoRun", "CaseId", "Condition", "Kind", "Stage", "Pass", "EpisodeIndex", "Score"} {
		require.Contains(t, setup[0], "--name "+sa)
	}
	// Every CLINEVO_* variable of the worker is a real config key with a valid value.
	for k, v := range w.Environment {
		if strings.HasPrefix(k, "CLINEVO_") {
			t.Setenv(k, v)
		}
	}
	cfg, err := config.Load(config.New(), "")
	require.NoError(t, err)
	require.Equal(t, "qdrant", cfg.Settings.Memory.Backend)
	require.Equal(t, "qdrant", cfg.Memory.Qdrant.Host)
	require.Equal(t, 6334, cfg.Memory.Qdrant.Port)
	require.Equal(t, "temporal:7233", cfg.Temporal.Address)
	require.Equal(t, "otlp", cfg.Telemetry.Exporter)
	require.Equal(t, "otel-collector:4317", cfg.Telemetry.OTLPEndpoint)
	require.NotContains(t, string(b), "sk-", "no key in the compose file")
	for _, svc := range []string{"otel-collector", "temporal"} {
		for _, v := range doc.Services[svc].Volumes {
			src := strings.SplitN(v, ":", 2)[0]
			_, err := os.Stat("../" + strings.TrimPrefix(src, "./"))
			require.NoError(t, err, "mounted file %s exists", src)
		}
	}
}

// TestTemporalDynamicConfig checks that the compose Temporal service reads
// deploy/temporal-dynamicconfig.yaml, that Temporal's own loader accepts it,
// and that it lifts the transfer-queue read rate above the server default.
func TestTemporalDynamicConfig(t *testing.T) {
	b, err := os.ReadFile("../docker-compose.yml")
	require.NoError(t, err)
	var doc struct {
		Services map[string]service `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(b, &doc))
	temporal := doc.Services["temporal"]
	const mount = "./deploy/temporal-dynamicconfig.yaml:/etc/temporal/config/dynamicconfig/clinevo.yaml:ro"
	require.Contains(t, temporal.Volumes, mount)
	// The image resolves the path against its working directory, /etc/temporal.
	require.Equal(t, "config/dynamicconfig/clinevo.yaml", temporal.Environment["DYNAMIC_CONFIG_FILE_PATH"])

	file, err := os.ReadFile("temporal-dynamicconfig.yaml")
	require.NoError(t, err)
	loaded := dynamicconfig.LoadYamlFile(file)
	require.NoError(t, loaded.Err())
	require.Empty(t, loaded.Warnings)
	values := loaded.Map[dynamicconfig.TransferProcessorMaxPollRPS.Key()]
	require.Len(t, values, 1, "one value for every shard and namespace")
	require.Empty(t, values[0].Constraints)
	rps, ok := values[0].Value.(int)
	require.True(t, ok, "an integer rate, got %T", values[0].Value)
	// The server default is 20 reads a second per shard, which holds each
	// workflow task ~45 ms; the embedded server measured 1.9 ms at 2000.
	require.GreaterOrEqual(t, rps, 1000)
	for _, key := range []string{"limit.maxIDLength", "system.forceSearchAttributesCacheRefreshOnRead"} {
		require.Len(t, loaded.Map[dynamicconfig.MakeKey(key)], 1, "kept from the image's docker.yaml: %s", key)
	}
}

func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("Dockerfile")
	require.NoError(t, err)
	var froms []string
	user := ""
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "FROM":
			froms = append(froms, f[1])
		case "USER":
			user = f[1]
		}
	}
	require.Len(t, froms, 2, "multi-stage: a build stage and a small runtime stage")
	require.True(t, strings.HasPrefix(froms[0], "golang:1.26.8"), "built with the project's Go")
	require.Contains(t, froms[1], "distroless/static")
	require.Contains(t, string(b), "CGO_ENABLED=0", "a static binary for the static base")
	require.NotEmpty(t, user)
	require.NotEqual(t, "root", strings.Split(user, ":")[0], "runs as non-root")
	require.Contains(t, string(b), "COPY --from=build")
}
