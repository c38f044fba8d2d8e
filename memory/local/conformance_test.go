package local_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/memory/memorytest"
)

func TestConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) memory.Store {
		s, err := local.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), memory.HashEmbedder{})
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	})
}
