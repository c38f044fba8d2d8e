package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/engine/enginetest"
)

// TestMissingSearchAttributesAreAdded: a namespace that lacks one of
// clinevo's search attributes (a data dir of an older clinevo) is found out,
// named with the command that adds it, and completed.
func TestMissingSearchAttributesAreAdded(t *testing.T) {
	port := enginetest.FreePort(t)
	srv, err := devserver.Start(devserver.Options{DataDir: t.TempDir(), Port: port})
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	c, err := client.Dial(client.Options{HostPort: srv.Address()})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	ctx := context.Background()
	missing, err := devserver.MissingSearchAttributes(ctx, c, "default")
	require.NoError(t, err)
	require.Empty(t, missing, "a new data dir has every attribute")
	require.NoError(t, devserver.CheckSearchAttributes(ctx, c, "default"))

	_, err = c.OperatorService().RemoveSearchAttributes(ctx, &operatorservice.RemoveSearchAttributesRequest{Namespace: "default",
		SearchAttributes: []string{"ClinevoOutcome"}})
	require.NoError(t, err)
	missing, err = devserver.MissingSearchAttributes(ctx, c, "default")
	require.NoError(t, err)
	require.Equal(t, []string{"ClinevoOutcome"}, missing)
	require.Contains(t, devserver.MissingHelp("default", missing),
		"temporal operator search-attribute create --namespace default --name ClinevoOutcome --type Keyword")
	require.EqualError(t, devserver.CheckSearchAttributes(ctx, c, "default"), devserver.MissingHelp("default", missing),
		"a worker refuses the namespace, saying how to add what it lacks")

	require.NoError(t, devserver.AddMissingSearchAttributes(ctx, c, "default"))
	missing, err = devserver.MissingSearchAttributes(ctx, c, "default")
	require.NoError(t, err)
	require.Empty(t, missing)
}
