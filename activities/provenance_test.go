package activities_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// askingDoctor consults a model before the built-in doctor decides, so a
// turn makes one model call on the doctor's account.
type askingDoctor struct{ c *llm.Client }

func (d askingDoctor) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	var out struct{}
	if err := d.c.JSON(ctx, []llm.Message{llm.User("what next for " + v.OpeningComplaint)}, &out, nil); err != nil {
		return actor.Decision{}, err
	}
	return actor.Builtin{}.Decide(ctx, v)
}

// TestModelProvenanceIsStored: the served model and system_fingerprint of a
// model call made in an activity are stored with the episode's usage, by
// role; two turns served by fp_1 and then fp_2 keep both.
func TestModelProvenanceIsStored(t *testing.T) {
	srv := llmtest.New(t)
	srv.Fingerprints, srv.ServedModel = []string{"fp_1", "fp_2"}, "test-model-0613"
	a, f, _, in := setup(t)
	doc := askingDoctor{c: srv.Client(t, "doctor", nil)}
	a.Roles = func(settings.Settings) (runner.Roles, error) {
		r := runner.BuiltinRoles()
		r.Doctor = doc
		return r, nil
	}
	ctx := context.Background()
	for turn := range 2 {
		in.Turn = turn
		_, err := a.Decide(ctx, in)
		require.NoError(t, err)
		_, err = a.Step(ctx, in)
		require.NoError(t, err)
	}
	u, err := f.UsageOf(ctx, in.EpisodeID)
	require.NoError(t, err)
	require.Equal(t, 2, u["doctor"].Calls)
	require.Equal(t, []string{"fp_1", "fp_2"}, u["doctor"].Fingerprints)
	require.Equal(t, []string{"test-model-0613"}, u["doctor"].ServedModels)
}
