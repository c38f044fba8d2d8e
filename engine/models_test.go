package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/protobuf/encoding/protojson"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results/postgres/pgtest"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

func runStream(t testing.TB, env *enginetest.Env, spec contract.StreamSpec) contract.StreamResult {
	t.Helper()
	ctx := context.Background()
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.StreamWorkflowID(spec.RunID), TaskQueue: contract.TaskQueue},
		workflows.StreamWorkflow, spec)
	require.NoError(t, err)
	var res contract.StreamResult
	require.NoError(t, run.Get(ctx, &res))
	return res
}

// TestModelRolesSurviveFailingEndpoint runs 20 episodes with a model-backed
// doctor, process grader and evolver against a fake endpoint that fails every
// fifth request with a 500: the stream completes with every episode recorded
// once and every card written once.
func TestModelRolesSurviveFailingEndpoint(t *testing.T) {
	t.Parallel() // see TestMain
	srv := llmtest.New(t)
	srv.FailEvery = 5
	env := enginetest.StartWith(t, quietLogger{})
	set := enginetest.ModelSettings(srv, "", "doctor", "grader", "evolver")
	// A failed call is tried again after 50 ms, not the default second: the
	// test is about what reaches the stores, and its ten and more failures
	// would wait ten and more seconds.
	set.Durability.MaxBackoff = settings.Duration(50 * time.Millisecond)
	spec := contract.StreamSpec{RunID: "models", Corpus: "builtin:stream", Limit: 20, StageSize: 10, ActivityTimeoutSeconds: 20, Settings: set}
	res := runStream(t, env, spec)
	require.Equal(t, 20, res.Episodes)

	ctx := context.Background()
	recs, err := env.Engine.Results.Records(ctx, "models")
	require.NoError(t, err)
	require.Len(t, recs, 20)
	seen := map[string]bool{}
	for _, r := range recs {
		require.False(t, seen[r.EpisodeID])
		seen[r.EpisodeID] = true
		require.Equal(t, "Migraine", r.Final.Diagnosis[0], "the model doctor's decisions were used")
		require.Equal(t, 2, r.Scores.T)
		require.Contains(t, r.Usage, "doctor")
		require.Contains(t, r.Usage, "grader")
		require.Contains(t, r.Usage, "evolver")
		for _, l := range r.Labels {
			require.Equal(t, "LOW_YIELD", l, "the model grader's labels were used")
		}
	}
	require.GreaterOrEqual(t, len(srv.Requests())/srv.FailEvery, 10, "at least ten requests failed with a 500")
	cards, err := env.Engine.Memory.List(ctx, memory.Filter{Runs: []string{"models"}, IncludeEvicted: true})
	require.NoError(t, err)
	require.Len(t, cards, 20, "one model card per episode, none lost or doubled")
	usage, err := env.Engine.Results.RunUsage(ctx, "models")
	require.NoError(t, err)
	require.Positive(t, usage["doctor"].PromptTokens)
	require.Positive(t, usage["doctor"].CostUSD)
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAPIKeyNeverLeaks sets an API key in the environment, runs episodes with a
// model doctor, and looks for the key in every workflow history, the results
// store, the memory bank and the logs.
func TestAPIKeyNeverLeaks(t *testing.T) {
	t.Parallel() // its key variable is its own: enginetest.Setenv
	const key = "sk-clinevo-test-9f8e7d6c5b4a"
	enginetest.Setenv(t, "CLINEVO_TEST_API_KEY", key)
	srv := llmtest.New(t)
	var logs syncBuffer
	logger := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	env := enginetest.StartWith(t, logger)
	runStream(t, env, contract.StreamSpec{RunID: "secret", Corpus: "builtin:stream", Limit: 3, StageSize: 2,
		Settings: enginetest.ModelSettings(srv, "CLINEVO_TEST_API_KEY", "doctor", "judge")})

	reqs := srv.Requests()
	require.NotEmpty(t, reqs)
	require.Equal(t, "Bearer "+key, reqs[0].Auth, "the key is used")
	requireNowhere(t, env, "secret", key)
	require.Contains(t, logs.String(), "fake-doctor", "the run log names the model")
	require.NotContains(t, logs.String(), key, "the logs hold the key")
	require.False(t, strings.Contains(fmt.Sprint(llm.Describe(nil, enginetest.ModelSettings(srv, "CLINEVO_TEST_API_KEY", "doctor"))), key))
}

// TestPostgresPasswordNeverLeaks runs a stream with its results on PostgreSQL,
// configured as a user would (the password in the variable password_env
// names), and looks for the password in every workflow history, every file
// of the data directory, every row of the database and the logs.
func TestPostgresPasswordNeverLeaks(t *testing.T) {
	dsn := pgtest.Fresh(t)
	password := os.Getenv(pgtest.EnvPassword)
	require.NotEmpty(t, password, "the test role has a password")
	t.Setenv("CLINEVO_RESULTS_BACKEND", "postgres")
	t.Setenv("CLINEVO_RESULTS_POSTGRES_DSN", dsn)
	t.Setenv("CLINEVO_RESULTS_POSTGRES_PASSWORD_ENV", pgtest.EnvPassword)
	set := enginetest.Set(t)
	cfg, err := config.Load(config.New(set), "", set)
	require.NoError(t, err)
	pg := cfg.PostgresOptions()
	require.NotNil(t, pg)

	var logs syncBuffer
	logger := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	env := enginetest.StartSetup(t, enginetest.Setup{Logger: logger, Postgres: pg})
	runStream(t, env, contract.StreamSpec{RunID: "pgsecret", Corpus: "builtin:stream", Limit: 3, StageSize: 2})

	ctx := context.Background()
	recs, err := env.Engine.Results.Records(ctx, "pgsecret")
	require.NoError(t, err)
	require.Len(t, recs, 3)
	_, err = os.Stat(filepath.Join(env.DataDir, "results.db"))
	require.ErrorIs(t, err, os.ErrNotExist, "the results went to PostgreSQL")
	requireNowhere(t, env, "pgsecret", password)
	require.NotContains(t, logs.String(), password, "the logs hold the password")
	require.NotContains(t, fmt.Sprintf("%v %+v", pg, *pg), password, "a logged config shows no password")

	pc, err := pgx.ParseConfig(dsn)
	require.NoError(t, err)
	pc.Password = password
	conn, err := pgx.ConnectConfig(ctx, pc)
	require.NoError(t, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Contains(t, tables, "episodes")
	var all strings.Builder
	for _, table := range tables {
		var dump string
		require.NoError(t, conn.QueryRow(ctx, fmt.Sprintf(`SELECT COALESCE(string_agg(t::text, ' '), '') FROM %s t`, pgx.Identifier{table}.Sanitize())).Scan(&dump))
		require.NotContains(t, dump, password, "table %s holds the password", table)
		all.WriteString(dump)
	}
	require.Contains(t, all.String(), "pgsecret/p1/s01/e0001-stream-0001", "the dump reads the recorded rows")
}

// requireNowhere looks for a secret in the histories of a run's workflows and
// in every file of the data directory.
func requireNowhere(t *testing.T, env *enginetest.Env, run, secret string) {
	t.Helper()
	ctx := context.Background()
	resp, err := env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: fmt.Sprintf("ClinevoRun = %q", run), PageSize: 100})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(resp.Executions), 4, "the stream runs and its episodes")
	for _, e := range resp.Executions {
		it := env.Client.GetWorkflowHistory(ctx, e.Execution.WorkflowId, e.Execution.RunId, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(t, err)
			b, err := protojson.Marshal(ev)
			require.NoError(t, err)
			require.NotContains(t, string(b), secret, "history of %s", e.Execution.WorkflowId)
		}
	}
	files, err := os.ReadDir(env.DataDir)
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(env.DataDir, f.Name()))
		require.NoError(t, err)
		require.False(t, bytes.Contains(b, []byte(secret)), "%s holds the secret", f.Name())
	}
}

// TestDoctorModelsPerCondition runs one experiment whose two conditions name
// two doctor models: the worker builds each condition's client from the
// settings it carries, and every episode's requests and usage belong to its
// own condition's model, nothing shared.
func TestDoctorModelsPerCondition(t *testing.T) {
	t.Parallel() // see TestMain
	srv := llmtest.New(t)
	env := enginetest.StartWith(t, quietLogger{})
	doctor := func(model string) settings.Overrides {
		return settings.Overrides{"roles": map[string]any{"doctor": map[string]any{"backend": "openai", "base_url": srv.BaseURL(), "model": model, "timeout": "5s"}}}
	}
	spec := contract.ExperimentSpec{Name: "models2", HeldOut: "builtin:heldout", HeldOutLimit: 3, EvalConcurrency: 2, Conditions: []contract.ConditionSpec{
		{Name: "A", Kind: contract.KindHeldOut, Settings: doctor("model-a")},
		{Name: "B", Kind: contract.KindHeldOut, Settings: doctor("model-b")}}}
	ctx := context.Background()
	run, err := engine.StartExperiment(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))
	byModel := map[string]int{}
	for _, r := range srv.Requests() {
		byModel[fmt.Sprint(r.Body["model"])]++
	}
	require.Positive(t, byModel["model-a"])
	require.Positive(t, byModel["model-b"])
	require.Equal(t, len(srv.Requests()), byModel["model-a"]+byModel["model-b"], "no other model was called")
	for cond, model := range map[string]string{"A": "model-a", "B": "model-b"} {
		recs, err := env.Engine.Results.Records(ctx, spec.RunID(cond))
		require.NoError(t, err)
		require.Len(t, recs, 3)
		for _, r := range recs {
			require.Contains(t, r.Usage, "doctor", "episode %s", r.EpisodeID)
			require.Equal(t, model, r.Usage["doctor"].Model, "episode %s names its own model", r.EpisodeID)
		}
	}
}

// TestEchoedKeyNeverReachesTheDataDir (issue 37, item 7): an endpoint whose
// 401 body echoes the request's Authorization header (some proxies do) fails
// the stream, and the key is in no workflow history, no file of the data
// directory (temporal.db's WAL included), no log line and not in the error
// the stream ends with: it used to appear there 9 times.
func TestEchoedKeyNeverReachesTheDataDir(t *testing.T) {
	t.Parallel() // its key variable is its own: enginetest.Setenv
	const key = "sk-clinevo-echo-3b1f0e9d8c7a"
	enginetest.Setenv(t, "CLINEVO_TEST_ECHO_KEY", key)
	srv := llmtest.New(t)
	var mu sync.Mutex
	judged := 0
	srv.Script = func(_ int, r llmtest.Request) *llmtest.Reply {
		if r.Role != "judge" {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if judged++; judged <= 2 {
			return nil
		}
		return &llmtest.Reply{Status: 401, Content: "proxy: upstream refused Authorization: " + r.Auth}
	}
	var logs syncBuffer
	logger := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	env := enginetest.StartWith(t, logger)
	ctx := context.Background()
	run, err := engine.StartStream(ctx, env.Client, env.Engine.Results, "", contract.StreamSpec{RunID: "echo", Corpus: "builtin:stream", Limit: 4,
		StageSize: 2, Settings: enginetest.ModelSettings(srv, "CLINEVO_TEST_ECHO_KEY", "doctor", "judge")})
	require.NoError(t, err)
	err = run.Get(ctx, nil)
	require.ErrorContains(t, err, "proxy: upstream refused Authorization: Bearer [redacted]", "the stream fails on the 401, its words kept")
	require.NotContains(t, err.Error(), key)
	require.Equal(t, "Bearer "+key, srv.Requests()[0].Auth, "the key was sent, and echoed")
	requireNowhere(t, env, "echo", key)
	require.NotContains(t, logs.String(), key, "the logs hold the key")
}
