package planner

import "testing"

// TestTierIndex holds tierIndex to tierOrder, which tierTotals sums in.
func TestTierIndex(t *testing.T) {
	for i, tier := range tierOrder {
		if got := tierIndex(tier); got != i {
			t.Errorf("tierIndex(%q) = %d, want %d", tier, got, i)
		}
	}
	if got := tierIndex("T9"); got != -1 {
		t.Errorf("tierIndex(%q) = %d, want -1", "T9", got)
	}
}
