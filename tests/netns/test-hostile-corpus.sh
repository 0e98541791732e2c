# SPDX-License-Identifier: Apache-2.0
# The hostile-input corpus (tests/hostile/*.cases) in the netns tier: one
# test per group, each in the private namespaces run.sh gives it. The same
# groups run standalone, with a totals line, through tests/hostile/run.sh.

HOSTILE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../hostile" && pwd)
. "$HOSTILE_DIR/corpus.sh"

for _f in "$HOSTILE_DIR"/*.cases; do
	_g=${_f##*/}
	_g=${_g%.cases}
	eval "test_corpus_${_g//-/_}() { corpus_group '$_f' || fail 'corpus group $_g'; }"
done
unset _f _g
