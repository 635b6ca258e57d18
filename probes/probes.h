/* SPDX-License-Identifier: MIT */
/* probes.h - the one list of probes (X-macro). A new probe is one descriptor
 * in its family file and one line here. Order = order of `atomcost list`
 * and of the default run. */
#ifndef ATOMCOST_PROBES_H
#define ATOMCOST_PROBES_H

#include "probe.h"

#define PROBES(X)			\
	/* baseline */			\
	X(empty)			\
	X(add_chain)			\
	X(imul_chain)			\
	X(load_chase)			\
	X(store)			\
	/* bitops */			\
	X(set_bit)			\
	X(__set_bit)			\
	X(__or_byte)			\
	X(set_bit_var)			\
	X(__set_bit_var)		\
	X(or_word)			\
	X(__or_word)			\
	X(set_bit_ds)			\
	X(clear_bit)			\
	X(__clear_bit)			\
	X(change_bit)			\
	X(__change_bit)			\
	X(clear_bit_var)		\
	X(__clear_bit_var)		\
	X(test_and_set_bit)		\
	X(__test_and_set_bit)		\
	/* cmpxchg and friends */	\
	X(cmpxchg)			\
	X(cmpxchg_local)		\
	X(try_cmpxchg)			\
	X(try_cmpxchg_local)		\
	X(this_cpu_cmpxchg)		\
	X(xchg)				\
	X(__xchg)			\
	X(atomic_add_return)		\
	X(xadd_local)			\
	X(atomic_inc)			\
	X(local_inc)			\
	X(cmpxchg128)			\
	X(cmpxchg128_local)		\
	/* locks and local locks */	\
	X(spin_lock)			\
	X(spin_lock_xchg_unlock)	\
	X(spin_lock_movl_unlock)	\
	X(spin_lock_xchgl_unlock)	\
	X(ticket_lock)			\
	X(ticket_backoff_lock)		\
	X(mcs_spin_lock)		\
	X(clh_lock)			\
	X(osq_lock)			\
	X(tas_lock)			\
	X(tatas_lock)			\
	X(tas_backoff_lock)		\
	X(read_lock)			\
	X(write_lock)			\
	X(read_seqcount)		\
	X(write_seqlock)		\
	X(rcu_read_lock)		\
	X(raw_spin_lock_inline)		\
	X(call_pair)			\
	X(bit_spin_lock)		\
	X(__bit_spin_unlock)		\
	X(pthread_mutex)		\
	X(pthread_spin)			\
	X(preempt_disable)		\
	X(local_irq_save_analog)	\
	X(sigprocmask)			\
	/* reference counts */		\
	X(refcount_get_put)		\
	X(atomic_get_put)		\
	X(lockref_get_put)		\
	X(locked_get_put)		\
	X(percpu_ref_get_put)		\
	/* per-CPU ops (rseq) */	\
	X(rseq_add)			\
	X(percpu_lock_add)		\
	X(percpu_add_nl)		\
	X(rseq_cmpxchg)			\
	X(this_cpu_inc)			\
	X(this_cpu_add)			\
	/* ordering */			\
	X(smp_mb)			\
	X(mb)				\
	X(rmb)				\
	X(smp_rmb)			\
	X(wmb)				\
	X(smp_wmb)			\
	X(smp_mb__before_atomic)	\
	X(smp_mb__after_atomic)		\
	X(set_bit_mb_after_atomic)	\
	X(__set_bit_smp_mb)		\
	X(clear_bit_unlock)		\
	X(__clear_bit_unlock)		\
	X(test_and_set_bit_lock)	\
	X(store_smp_mb)			\
	X(smp_store_release)		\
	X(smp_load_acquire)		\
	X(atomic_fetch_or_relaxed)	\
	X(atomic_fetch_or_acquire)	\
	X(atomic_fetch_or_release)	\
	X(atomic_fetch_or)

#define PROBE_DECLARE(id) extern const struct probe probe_##id;
PROBES(PROBE_DECLARE)

#endif
