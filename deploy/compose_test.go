// Package deploy_test checks the deployment files: Docker is not available on
// our machines, so the compose file and the Dockerfile are validated by
// structure, and the environments of the worker and of the host CLI are
// loaded through the real config.
package deploy_test

import (
	"bufio"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/server/common/dynamicconfig"
	"go.yaml.in/yaml/v3"

	"github.com/clinevo/clinevo/benchmarks/all"
	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results/postgres"
	"github.com/clinevo/clinevo/settings"
)

type service struct {
	Image string `yaml:"image"`
	Build *struct {
		Context, Dockerfile string
		Args                map[string]string
	} `yaml:"build"`
	ContainerName string            `yaml:"container_name"`
	Command       any               `yaml:"command"`
	Ports         []string          `yaml:"ports"`
	Environment   map[string]string `yaml:"environment"`
	DependsOn     map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Healthcheck *struct {
		Test        []string `yaml:"test"`
		Interval    string   `yaml:"interval"`
		Timeout     string   `yaml:"timeout"`
		Retries     int      `yaml:"retries"`
		StartPeriod string   `yaml:"start_period"`
	} `yaml:"healthcheck"`
	Volumes    []string `yaml:"volumes"`
	Entrypoint []string `yaml:"entrypoint"`
	Restart    string   `yaml:"restart"`
}

type compose struct {
	Services map[string]service `yaml:"services"`
	Volumes  map[string]any     `yaml:"volumes"`
}

func readCompose(t *testing.T) (compose, string) {
	t.Helper()
	b, err := os.ReadFile("../docker-compose.yml")
	require.NoError(t, err)
	var doc compose
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&doc))
	return doc, string(b)
}

// dotenv is .env.example with a test value for every variable, as a user's
// .env would set them.
func dotenv(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../.env.example")
	require.NoError(t, err)
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		require.True(t, ok, ".env.example: %q is not KEY=VALUE", line)
		require.Empty(t, v, ".env.example holds no password of its own: %s", k)
		env[k] = "test-" + strings.ToLower(k) + "-3f9a"
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, env)
	return env
}

var ref = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([?-])([^}]*))?\}`)

// interpolate substitutes ${VAR}, ${VAR:-default} and ${VAR:?message} as
// compose does; a required variable that is empty fails the test.
func interpolate(t *testing.T, v string, env map[string]string) string {
	t.Helper()
	return ref.ReplaceAllStringFunc(v, func(m string) string {
		p := ref.FindStringSubmatch(m)
		val := env[p[1]]
		switch {
		case val != "":
			return val
		case p[2] == "-":
			return p[3]
		case p[2] == "?":
			t.Fatalf("compose refuses to start: %s", p[3])
		}
		return ""
	})
}

func TestComposeFile(t *testing.T) {
	doc, _ := readCompose(t)
	for _, name := range []string{"postgresql", "databases", "temporal-schema", "temporal", "temporal-setup", "temporal-ui", "qdrant", "otel-collector", "worker", "viewer"} {
		require.Contains(t, doc.Services, name)
	}
	require.Equal(t, "postgres12", doc.Services["temporal"].Environment["DB"], "Temporal on PostgreSQL")
	require.Equal(t, "service_completed_successfully", doc.Services["temporal"].DependsOn["temporal-schema"].Condition, "the schema is set up first")
	require.Equal(t, "service_completed_successfully", doc.Services["temporal-schema"].DependsOn["databases"].Condition, "in databases that exist")

	for _, name := range []string{"worker", "viewer"} {
		w := doc.Services[name]
		require.NotNil(t, w.Build, name)
		require.Equal(t, "deploy/Dockerfile", w.Build.Dockerfile)
		for _, dep := range []string{"temporal", "qdrant"} {
			require.Equal(t, "service_healthy", w.DependsOn[dep].Condition, "the %s waits for %s", name, dep)
		}
		require.Equal(t, "service_completed_successfully", w.DependsOn["temporal-setup"].Condition, "%s: search attributes are registered first", name)
		require.Equal(t, "service_completed_successfully", w.DependsOn["databases"].Condition, "%s: clinevo's database exists first", name)
	}
	require.Equal(t, []any{"worker", "--memory-backend", "qdrant"}, doc.Services["worker"].Command)

	db := doc.Services["databases"]
	require.Equal(t, "service_healthy", db.DependsOn["postgresql"].Condition, "the databases are created once PostgreSQL takes connections")
	require.Equal(t, "postgresql", db.Environment["PGHOST"])
	require.Equal(t, []string{"sh", "/clinevo-db.sh"}, db.Entrypoint)
	require.Contains(t, db.Volumes, "./deploy/clinevo-db.sh:/clinevo-db.sh:ro")
	for _, name := range []string{"databases", "temporal-schema", "temporal-setup"} {
		require.Equal(t, "no", doc.Services[name].Restart, "%s is a one-shot step", name)
	}

	for name, s := range doc.Services {
		for _, v := range s.Volumes {
			src := strings.SplitN(v, ":", 2)[0]
			if !strings.HasPrefix(src, "./") {
				require.Contains(t, doc.Volumes, src, "%s mounts a declared volume", name)
				continue
			}
			_, err := os.Stat("../" + strings.TrimPrefix(src, "./"))
			require.NoError(t, err, "%s mounts %s, which exists", name, src)
		}
	}
}

// TestComposeLoopbackOnly checks that every published port is bound to
// 127.0.0.1: nothing compose starts is reachable from another machine until
// its operator changes a binding.
func TestComposeLoopbackOnly(t *testing.T) {
	doc, _ := readCompose(t)
	published := 0
	for name, s := range doc.Services {
		for _, p := range s.Ports {
			published++
			parts := strings.Split(p, ":")
			require.Len(t, parts, 3, "%s: port %q names its host address (HOST:PORT:PORT)", name, p)
			require.Equal(t, "127.0.0.1", parts[0], "%s: port %q is published on loopback only", name, p)
		}
	}
	require.GreaterOrEqual(t, published, 8, "PostgreSQL, Temporal, its UI, Qdrant (2), the collector (2) and the viewer")
}

// TestComposeImagesPinned checks that every image names a full version (no
// "latest", no bare major), and that Temporal's server and admin tools are
// the release clinevo embeds (go.temporal.io/server in go.mod).
func TestComposeImagesPinned(t *testing.T) {
	doc, _ := readCompose(t)
	full := regexp.MustCompile(`^[a-z0-9./-]+:v?\d+\.\d+(\.\d+)?$`)
	for name, s := range doc.Services {
		if s.Build != nil {
			continue
		}
		require.Regexp(t, full, s.Image, "%s: image %q is pinned to a full version", name, s.Image)
	}
	mod, err := os.ReadFile("../go.mod")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\s*go\.temporal\.io/server v(\d+\.\d+\.\d+)\s*$`).FindSubmatch(mod)
	require.NotNil(t, m, "go.mod requires go.temporal.io/server")
	embedded := string(m[1])
	require.Equal(t, "temporalio/server:"+embedded, doc.Services["temporal"].Image, "the server clinevo embeds")
	for _, name := range []string{"temporal-schema", "temporal-setup"} {
		require.Equal(t, "temporalio/admin-tools:"+embedded, doc.Services[name].Image, "%s: the admin tools of that release", name)
	}
	for name, s := range doc.Services {
		require.NotContains(t, s.Image, "auto-setup", "%s: the deprecated auto-setup image", name)
	}
}

// TestComposeHealthChecks checks that every service another waits for with
// service_healthy has a health check, and that no check merely asks a
// binary for its version.
func TestComposeHealthChecks(t *testing.T) {
	doc, _ := readCompose(t)
	for name, s := range doc.Services {
		for dep, d := range s.DependsOn {
			require.Contains(t, doc.Services, dep, "%s depends on %s", name, dep)
			if d.Condition == "service_healthy" {
				require.NotNil(t, doc.Services[dep].Healthcheck, "%s waits for %s to be healthy: it needs a health check", name, dep)
			}
		}
		if s.Healthcheck == nil {
			continue
		}
		test := s.Healthcheck.Test
		require.NotEmpty(t, test, name)
		require.Contains(t, []string{"CMD", "CMD-SHELL"}, test[0], name)
		cmd := strings.Join(test[1:], " ")
		require.NotRegexp(t, `(^|\s)(-{0,2}version|-v)(\s|$)`, cmd, "%s: a version check tests nothing", name)
		require.NotEmpty(t, s.Healthcheck.Interval, name)
		require.Positive(t, s.Healthcheck.Retries, name)
	}
	for _, name := range []string{"postgresql", "temporal", "temporal-ui", "qdrant", "worker", "viewer"} {
		require.NotNil(t, doc.Services[name].Healthcheck, "%s has a health check", name)
	}
}

// TestComposeTemporalSetup checks the scripts that prepare Temporal: the
// databases exist, both schemas are set up and upgraded, the namespace is
// created before the search attributes are registered, every step is
// retried and none of their failures is ignored, and the attributes are
// exactly those the embedded server registers, with their types.
func TestComposeTemporalSetup(t *testing.T) {
	doc, _ := readCompose(t)
	read := func(name string) string {
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		return string(b)
	}
	db, schema, setup := read("clinevo-db.sh"), read("temporal-schema.sh"), read("temporal-setup.sh")
	for _, name := range []string{"temporal", "temporal_visibility"} {
		require.Contains(t, db, "CREATE DATABASE "+name+"'", "the databases service creates %s", name)
	}
	require.Contains(t, schema, "setup-schema -v 0.0")
	require.Contains(t, schema, `update-schema --schema-name "postgresql/v12/$schema"`)
	require.Contains(t, schema, "for db in temporal:temporal visibility:temporal_visibility")
	require.Equal(t, []string{"sh", "/temporal-schema.sh"}, doc.Services["temporal-schema"].Entrypoint)
	require.Contains(t, doc.Services["temporal-schema"].Volumes, "./deploy/temporal-schema.sh:/temporal-schema.sh:ro")
	require.Equal(t, []string{"sh", "/temporal-setup.sh"}, doc.Services["temporal-setup"].Entrypoint)
	require.Contains(t, doc.Services["temporal-setup"].Volumes, "./deploy/temporal-setup.sh:/temporal-setup.sh:ro")
	for name, text := range map[string]string{"clinevo-db.sh": db, "temporal-schema.sh": schema, "temporal-setup.sh": setup} {
		require.Contains(t, text, "set -eu", "%s stops at the first failure", name)
		require.NotContains(t, text, "|| true", "%s ignores no failure", name)
	}
	ns := strings.Index(setup, `retry "namespace $NAMESPACE exists" ensure_namespace`)
	sa := strings.Index(setup, "t operator search-attribute create")
	require.Positive(t, ns, "the namespace is created with retries")
	require.Greater(t, sa, ns, "search attributes are registered after the namespace exists")
	require.Contains(t, setup[sa-200:sa], "retry ", "each registration is retried")
	require.Contains(t, setup, "exit 1", "and fails when it never succeeds")

	m := regexp.MustCompile(`(?s)for sa in (.*?); do`).FindStringSubmatch(setup)
	require.NotNil(t, m, "temporal-setup.sh lists the attributes")
	listed := map[string]string{}
	for _, f := range strings.Fields(strings.ReplaceAll(m[1], "\\", " ")) {
		name, typ, ok := strings.Cut(f, ":")
		require.True(t, ok, "NAME:Type, got %q", f)
		listed[name] = typ
	}
	require.Equal(t, contract.SearchAttributes, listed, "every attribute the embedded server registers, with its type, and no other")
}

// TestDockerIgnore checks that the build context (the repository root, for
// the worker and viewer images) leaves out .env with its passwords and keys,
// the local data and build output.
func TestDockerIgnore(t *testing.T) {
	doc, _ := readCompose(t)
	for _, name := range []string{"worker", "viewer"} {
		require.Equal(t, ".", doc.Services[name].Build.Context, "%s builds from the root, where .dockerignore is", name)
		require.Equal(t, "${CLINEVO_VERSION:-}", doc.Services[name].Build.Args["VERSION"], "%s: without .git the version is passed in", name)
	}
	dockerfile, err := os.ReadFile("Dockerfile")
	require.NoError(t, err)
	require.Contains(t, string(dockerfile), "-X github.com/clinevo/clinevo/internal/buildinfo.Stamp=${VERSION}", "the Dockerfile stamps it")
	b, err := os.ReadFile("../.dockerignore")
	require.NoError(t, err)
	lines := strings.Fields(string(b))
	for _, want := range []string{".env", ".env.*", "!.env.example", ".git", "data/", "*.db", "*.test"} {
		require.Contains(t, lines, want)
	}
}

// TestComposeModelKeys checks that every role's key variable reaches the
// workers (and the viewer, which shares their environment): the shared
// OPENAI_API_KEY and CLINEVO_<ROLE>_API_KEY for each role, optional (empty
// when the host does not set it).
func TestComposeModelKeys(t *testing.T) {
	doc, _ := readCompose(t)
	vars := []string{"OPENAI_API_KEY"}
	for _, role := range settings.RoleNames {
		vars = append(vars, "CLINEVO_"+strings.ToUpper(role)+"_API_KEY")
	}
	for _, name := range []string{"worker", "viewer"} {
		env := doc.Services[name].Environment
		for _, v := range vars {
			require.Equal(t, "${"+v+":-}", env[v], "%s: %s passes through from the host", name, v)
		}
	}
	require.Equal(t, doc.Services["worker"].Environment["PGPASSWORD"], doc.Services["viewer"].Environment["PGPASSWORD"], "the viewer reads the workers' results")
	require.Equal(t, "${CLINEVO_VIEW_TOKEN:?set CLINEVO_VIEW_TOKEN in .env (see .env.example)}", doc.Services["viewer"].Environment["CLINEVO_VIEW_TOKEN"],
		"the viewer listens beyond loopback inside the network: a token is required")
}

// TestComposeScalesWorkers checks what `docker compose up --scale worker=3`
// needs: no fixed container name, no host port, nothing on a shared volume.
func TestComposeScalesWorkers(t *testing.T) {
	doc, _ := readCompose(t)
	w := doc.Services["worker"]
	require.Empty(t, w.ContainerName, "a fixed container name allows one worker")
	require.Empty(t, w.Ports, "a host port allows one worker")
	require.Empty(t, w.Volumes, "workers keep nothing on disk: results on PostgreSQL, memory on Qdrant")
	require.Equal(t, "unless-stopped", w.Restart, "a crashed worker comes back")
}

// TestComposeSecrets checks that no password is written in the compose file:
// each is a required variable of .env, and .env stays out of git.
func TestComposeSecrets(t *testing.T) {
	doc, text := readCompose(t)
	env := dotenv(t)
	required := regexp.MustCompile(`^\$\{([A-Z_]+):\?[^}]+\}$`)
	n := 0
	for name, s := range doc.Services {
		for k, v := range s.Environment {
			if !strings.Contains(k, "PASSWORD") && !strings.Contains(k, "PWD") || strings.HasSuffix(k, "_ENV") {
				continue // not a password (a *_ENV key names the variable that holds one)
			}
			n++
			m := required.FindStringSubmatch(v)
			require.NotNil(t, m, "%s: %s=%q is a required variable (${VAR:?message}), not a value", name, k, v)
			require.Contains(t, env, m[1], "%s: %s comes from %s, which .env.example lists", name, k, m[1])
		}
	}
	require.GreaterOrEqual(t, n, 5, "the administrator's password (postgresql, temporal, clinevo-db) and clinevo's (clinevo-db, worker)")
	for _, m := range ref.FindAllStringSubmatch(text, -1) {
		if m[2] == "?" {
			require.Contains(t, env, m[1], ".env.example lists %s", m[1])
		}
	}
	require.NotContains(t, text, "sk-", "no key in the compose file")
	ignore, err := os.ReadFile("../.gitignore")
	require.NoError(t, err)
	require.Contains(t, strings.Fields(string(ignore)), ".env")
}

// TestWorkerAndCLIShareResults loads the worker's environment (as compose
// interpolates it from .env) and the host CLI's config file
// (deploy/clinevo.compose.yaml, with .env exported) through the real config:
// both reach the same database as the same role with the same password, the
// same Qdrant collection and the same Temporal task queue, the host through
// the ports compose publishes; the database and role are those clinevo-db
// creates. So `clinevo --config deploy/clinevo.compose.yaml runs list` shows
// what the compose workers recorded.
func TestWorkerAndCLIShareResults(t *testing.T) {
	doc, _ := readCompose(t)
	env := dotenv(t)
	var worker, host config.Config
	var wp, hp *postgres.Config // read while each environment is set
	var wq, hq string           // the Qdrant key each reads
	set, err := all.Set()
	require.NoError(t, err)
	t.Run("worker", func(t *testing.T) {
		for k, v := range doc.Services["worker"].Environment {
			t.Setenv(k, interpolate(t, v, env))
		}
		var err error
		worker, err = config.Load(config.New(set), "", set)
		require.NoError(t, err)
		wp = worker.PostgresOptions()
		wq = worker.QdrantOptions().APIKey
	})
	t.Run("host", func(t *testing.T) {
		for k, v := range env {
			t.Setenv(k, v) // set -a; . ./.env; set +a
		}
		var err error
		host, err = config.Load(config.New(set), "clinevo.compose.yaml", set)
		require.NoError(t, err)
		hp = host.PostgresOptions()
		hq = host.QdrantOptions().APIKey
	})
	require.Equal(t, "postgres", worker.Results.Backend)
	require.Equal(t, "postgres", host.Results.Backend)
	require.NotNil(t, wp)
	require.NotNil(t, hp)
	require.Equal(t, env["CLINEVO_DB_PASSWORD"], wp.Password, "the worker's password is .env's")
	require.Equal(t, wp.Password, hp.Password, "the host CLI's password is the same")
	wu, err := url.Parse(wp.DSN)
	require.NoError(t, err)
	hu, err := url.Parse(hp.DSN)
	require.NoError(t, err)
	require.Equal(t, "postgresql", wu.Hostname(), "the compose database")
	require.Equal(t, wu.User.Username(), hu.User.Username(), "one role")
	require.Equal(t, wu.Path, hu.Path, "one database")
	require.Contains(t, doc.Services["postgresql"].Ports, hu.Hostname()+":"+hu.Port()+":"+wu.Port(), "the host reaches the database through its published port")

	script, err := os.ReadFile("clinevo-db.sh")
	require.NoError(t, err)
	role, dbname := wu.User.Username(), strings.TrimPrefix(wu.Path, "/")
	require.Contains(t, string(script), "CREATE ROLE "+role+" LOGIN PASSWORD %L", "clinevo-db creates the role the DSN names")
	require.Contains(t, string(script), "CREATE DATABASE "+dbname+" OWNER "+role, "and its database")
	require.Contains(t, string(script), `-v pw="$CLINEVO_DB_PASSWORD"`, "with the password of .env")

	require.Equal(t, "qdrant", worker.Settings.Memory.Backend)
	require.Equal(t, "qdrant", host.Settings.Memory.Backend, "streams started from the host ask for the workers' backend")
	require.Equal(t, "qdrant", worker.Memory.Qdrant.Host)
	require.Equal(t, 6334, worker.Memory.Qdrant.Port)
	require.Equal(t, worker.Memory.Qdrant.Collection, host.Memory.Qdrant.Collection)
	require.Contains(t, doc.Services["qdrant"].Ports, "127.0.0.1:6334:6334")
	require.Equal(t, env["QDRANT_API_KEY"], wq, "the workers carry Qdrant's key")
	require.Equal(t, env["QDRANT_API_KEY"], hq, "and so does the host CLI")
	require.Equal(t, "127.0.0.1", host.Memory.Qdrant.Host)
	require.Equal(t, worker.Memory.Qdrant.Port, host.Memory.Qdrant.Port)

	require.Equal(t, "temporal:7233", worker.Temporal.Address)
	require.Equal(t, "127.0.0.1:7233", host.Temporal.Address)
	require.Contains(t, doc.Services["temporal"].Ports, "127.0.0.1:7233:7233")
	require.Equal(t, worker.Temporal.Namespace, host.Temporal.Namespace)
	require.Equal(t, worker.Temporal.TaskQueue, host.Temporal.TaskQueue)
	require.Equal(t, "otlp", worker.Telemetry.Exporter)
	require.Equal(t, "otel-collector:4317", worker.Telemetry.OTLPEndpoint)
}

// TestTemporalDynamicConfig checks that the compose Temporal service reads
// deploy/temporal-dynamicconfig.yaml, that Temporal's own loader accepts it,
// and that it lifts the transfer-queue read rate above the server default.
func TestTemporalDynamicConfig(t *testing.T) {
	doc, _ := readCompose(t)
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
