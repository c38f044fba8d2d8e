package memory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
)

// TestMemoryImportNeverOverwrites (issue 37, item 5): an import changes no
// card of the bank unless --replace asks it to (and then it names what it
// replaced), and every field of a card is checked as the command line
// checks it elsewhere, before anything is written.
func TestMemoryImportNeverOverwrites(t *testing.T) {
	ctx := context.Background()
	st := bank(t)
	before, err := st.List(ctx, memory.Filter{IncludeEvicted: true})
	require.NoError(t, err)
	moved := card("a", "r9", 1, "a text the finished run never wrote")
	fresh := card("f", "r9", 2, "a new card")
	_, err = memory.Import(ctx, st, []clinic.Card{fresh, moved}, false)
	require.ErrorIs(t, err, memory.ErrCardsExist)
	require.EqualError(t, err, "memory: import: 1 cards have the IDs of other cards in the bank (the first: a, a correction card of run r1, episode 1): "+
		"the bank holds other cards of these IDs; an import changes no card unless --replace asks it to")
	after, err := st.List(ctx, memory.Filter{IncludeEvicted: true})
	require.NoError(t, err)
	require.Equal(t, before, after, "nothing written, not even the new card")

	same, err := st.Get(ctx, "b")
	require.NoError(t, err)
	res, err := memory.Import(ctx, st, []clinic.Card{same}, false)
	require.NoError(t, err, "a card the bank holds as it is changes nothing")
	require.Equal(t, memory.ImportResult{Unchanged: 1}, res)

	res, err = memory.Import(ctx, st, []clinic.Card{fresh, moved}, true)
	require.NoError(t, err)
	require.Equal(t, 1, res.Added)
	require.Len(t, res.Replaced, 1)
	require.Equal(t, "r1", res.Replaced[0].Run, "what was replaced, as it was")
	got, err := st.Get(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, "r9", got.Run)
}
