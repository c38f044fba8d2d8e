package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/postgres"
	"github.com/clinevo/clinevo/results/postgres/pgtest"
	"github.com/clinevo/clinevo/results/resultstest"
)

// TestCommandsReadConfiguredResults records a run into PostgreSQL, as a worker
// on another machine would, and reads it with the CLI on an empty data
// directory configured for that database.
func TestCommandsReadConfiguredResults(t *testing.T) {
	dsn := pgtest.Fresh(t)
	ctx := context.Background()
	s, err := postgres.Open(ctx, postgres.Config{DSN: dsn, Password: os.Getenv(pgtest.EnvPassword)})
	require.NoError(t, err)
	require.NoError(t, s.PutRun(ctx, results.Run{Run: "shared", Kind: "stream", WorkflowID: "stream/shared", Spec: []byte(`{}`), Created: "2026-11-01T10:00:00Z"}))
	rec := resultstest.Record("shared", 1, "stream-0007")
	require.NoError(t, s.PutRecord(ctx, rec, resultstest.Trace(rec.EpisodeID, rec.CaseID, 2)))
	require.NoError(t, s.AddUsage(ctx, rec.EpisodeID, results.Usage{Calls: 3, PromptTokens: 120, CompletionTokens: 30}, "doctor"))
	require.NoError(t, s.Close())

	env := map[string]string{"CLINEVO_RESULTS_BACKEND": "postgres", "CLINEVO_RESULTS_POSTGRES_DSN": dsn,
		"CLINEVO_RESULTS_POSTGRES_PASSWORD_ENV": pgtest.EnvPassword}
	out, err := run(t, env, "runs", "list")
	require.NoError(t, err)
	// One episode: the run's mean S and its one stage's S are the record's;
	// then calls, tokens in, cached tokens in (none) and tokens out.
	sOf := regexp.QuoteMeta(fmt.Sprintf("%.3f", rec.Scores.S))
	require.Regexp(t, `shared\s+stream\s+1\s+`+sOf+`\s+`+sOf+`\s+3\s+120\s+0\s+30`, out)
	out, err = run(t, env, "episode", "show", rec.EpisodeID)
	require.NoError(t, err)
	require.Contains(t, out, "history: temporal workflow show --workflow-id \""+rec.EpisodeID+"\"")

	env["CLINEVO_RESULTS_POSTGRES_PASSWORD_ENV"] = "CLINEVO_TEST_NO_SUCH_PASSWORD"
	env["PGPASSWORD"] = "" // pgx's own fallback
	_, err = run(t, env, "runs", "list")
	require.ErrorContains(t, err, "results: open postgres", "without the password the database refuses the CLI")
}
