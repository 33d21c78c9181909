package planner

import "testing"

// TestGroupRanks holds groupRanks' walk of the ranks to coord's arithmetic:
// every rank lands in a group of its own stage and expert count, the groups
// are in the order of their first ranks, and they count every rank once.
func TestGroupRanks(t *testing.T) {
	for _, x := range []struct{ tp, pp, dp, ep, experts int }{
		{1, 1, 1, 1, 0}, {2, 1, 1, 1, 0}, {1, 4, 1, 1, 0}, {8, 2, 1, 8, 256}, {4, 2, 2, 8, 60},
		{8, 1, 1, 3, 64}, {2, 3, 2, 4, 7}, {4, 4, 1, 2, 0}, {1, 1, 4, 4, 9}, {8, 2, 2, 16, 257},
	} {
		in := Input{Parallel: Parallel{Tensor: x.tp, Pipeline: x.pp, Data: x.dp, Expert: x.ep}}
		if x.experts > 0 {
			in.Model.MoE = &MoE{Experts: x.experts}
		}
		p := &in.Parallel
		ids, keys := groupRanks(&in, nil, nil, nil)
		if len(ids) != p.GPUs() {
			t.Fatalf("%+v: %d ranks grouped, want %d", x, len(ids), p.GPUs())
		}
		count := make([]int, len(keys))
		for r, i := range ids {
			c, local := p.coord(r), 0
			if x.experts > 0 {
				local = localExperts(x.experts, p.ep(), c.epRank)
			}
			k := keys[i]
			if k.stage != c.stage || k.local != local {
				t.Errorf("%+v: rank %d in group (stage %d, %d experts), want (stage %d, %d experts)", x, r, k.stage, k.local, c.stage, local)
			}
			if count[i] == 0 && k.first != r {
				t.Errorf("%+v: group %d's first rank is %d, want %d", x, i, k.first, r)
			}
			count[i]++
		}
		for i, k := range keys {
			if k.ranks != count[i] {
				t.Errorf("%+v: group %d counts %d ranks, holds %d", x, i, k.ranks, count[i])
			}
		}
	}
}
