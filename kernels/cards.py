"""Card bit layout and bit helpers shared by every kernel (RULES.md C-1, C-2, B-1).

One uint64 holds a set of cards. Suited cards sit at bit ``suit * 13 + rank`` with suits
clubs, diamonds, hearts, spades = 0..3 (C-1 auction order) and ranks 2..A = 0..12, so a
higher bit within a suit is a higher card. Bridgette's Colons follow at bits 52..54.
"""

import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

RANK_TEN, RANK_JACK, RANK_KING, RANK_ACE = 8, 9, 11, 12

COLON_LITTLE, COLON_ROYAL, COLON_GRAND = 52, 53, 54
N_CARDS = 55

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "CDHS"
COLON_NAMES = ("CL", "CR", "CG")

ZERO = np.uint64(0)
ONE = np.uint64(1)
# "None yet" (no card led, no suit barred, no bid) and a count's start, as numba's int64
# rather than the literals -1 and 0: numba compiles a function once for each literal
# value passed to it, and a loop variable that starts at a literal is passed as one on the
# loop's first typing, so each function it reached compiled twice (a sixth of a game's
# compile with search code).
NONE = np.int64(-1)
NOUGHT = np.int64(0)
NO, YES = np.bool_(False), np.bool_(True)  # likewise for the literals False and True
ALL_SUITED = np.uint64((1 << 52) - 1)
COLONS = np.uint64(0b111 << 52)
SUIT_MASKS = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], dtype=np.uint64)

# Up-card class and Colon range (B-1, B-3): 0 numeral (2-10, Little Colon),
# 1 face (J, Q, K, Royal Colon), 2 ace (Grand Colon).
CLASS_NUMERAL, CLASS_FACE, CLASS_ACE = 0, 1, 2


def _rank_class(rank):
    return CLASS_NUMERAL if rank <= RANK_TEN else (CLASS_FACE if rank <= RANK_KING else CLASS_ACE)


CARD_CLASS = np.array([_rank_class(c % 13) for c in range(52)] + [0, 1, 2], dtype=np.int64)
RANGE_MASKS = np.array(
    [sum(1 << c for c in range(52) if CARD_CLASS[c] == k) for k in range(3)], dtype=np.uint64
)


if config.DISABLE_JIT:  # NUMBA_DISABLE_JIT=1: the kernels run as Python, for debugging
    def _ctpop_u64(x):
        return int(x).bit_count()

    def trailing_zeros(x):
        return (int(x) & -int(x)).bit_length() - 1

    def leading_zeros(x):
        return 64 - int(x).bit_length()
else:
    @intrinsic
    def _ctpop_u64(typingctx, x):
        sig = types.uint64(types.uint64)

        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])

        return sig, codegen


@njit(cache=True, inline="always")
def popcount_nb(x):
    """Number of cards in the set ``x`` (one popcnt instruction)."""
    return np.int64(_ctpop_u64(np.uint64(x)))


@njit(cache=True, inline="always")
def lowest_nb(x):
    """Index of the lowest card in a non-empty set."""
    return np.int64(trailing_zeros(np.uint64(x)))


@njit(cache=True, inline="always")
def bit_nb(card):
    """The one-card set of ``card``."""
    return ONE << np.uint64(card)


@njit(cache=True)
def cards_of_nb(cards):
    """The cards of the set ``cards`` as an array, lowest first."""
    out = np.empty(popcount_nb(cards), dtype=np.int64)
    for i in range(out.shape[0]):
        out[i] = lowest_nb(cards)
        cards &= cards - ONE
    return out


@njit(cache=True, inline="always")
def highest_nb(x):
    """Index of the highest card in a non-empty set."""
    return np.int64(63) - np.int64(leading_zeros(np.uint64(x)))


def _pext_nibbles() -> np.ndarray:
    """``PEXT4[m * 16 + d]``: the bits of the nibble ``d`` where the nibble ``m`` has ones,
    moved down next to each other."""
    table = np.zeros(256, dtype=np.uint64)
    for m in range(16):
        for d in range(16):
            kept = [d >> b & 1 for b in range(4) if m >> b & 1]
            table[m * 16 + d] = sum(bit << k for k, bit in enumerate(kept))
    return table


PEXT4 = _pext_nibbles()
NIBBLE_COUNTS = np.array([bin(m).count("1") for m in range(16)], dtype=np.uint64)
_NIBBLE = np.uint64(15)
_S4 = np.uint64(4)


@njit(cache=True, inline="always")
def compress_table_nb(x, mask):
    """The bits of ``x`` where ``mask`` has ones, moved down next to each other in order
    (x86's pext), a nibble at a time: the cards of ``x`` numbered by their place among the
    cards of ``mask``."""
    out = ZERO
    shift = ZERO
    while mask:
        m = mask & _NIBBLE
        out |= PEXT4[np.int64((m << _S4) | (x & _NIBBLE))] << shift
        shift += NIBBLE_COUNTS[np.int64(m)]
        mask >>= _S4
        x >>= _S4
    return out


def _nth_in_byte() -> np.ndarray:
    """``NTH_IN_BYTE[b * 8 + n]``: the place of the ``n``-th lowest one bit of the byte ``b``."""
    table = np.zeros(256 * 8, dtype=np.int8)
    for b in range(256):
        for n, place in enumerate(i for i in range(8) if b >> i & 1):
            table[b * 8 + n] = place
    return table


NTH_IN_BYTE = _nth_in_byte()
_LOW32, _LOW16, _LOW8 = np.uint64(0xFFFFFFFF), np.uint64(0xFFFF), np.uint64(0xFF)


@njit(cache=True, inline="always")
def nth_card_table_nb(x, n):
    """The ``n``-th lowest card (0-based) of the set ``x``: halves of 32, 16 and 8 bits
    chosen by their counts, then a byte table. Written without branches (a random ``n``
    would mispredict them; clearing ``n`` low bits in a loop mispredicts its exit)."""
    place = 0
    for width, low in ((32, _LOW32), (16, _LOW16), (8, _LOW8)):
        below = popcount_nb(x & low)
        up = np.int64(n >= below)
        n -= below * up
        x >>= np.uint64(width * up)
        place += width * up
    return place + np.int64(NTH_IN_BYTE[np.int64(x & _LOW8) * 8 + n])


def _fast_bmi2() -> bool:
    """Whether numba compiles for this machine's own processor and it has fast x86 pdep and
    pext (BMI2; AMD's Zen 1 and 2 run them in microcode, a hundred times slower)."""
    if config.DISABLE_JIT or config.CPU_NAME is not None or config.CPU_FEATURES is not None:
        return False
    from llvmlite import binding as llvm

    return bool(llvm.get_host_cpu_features().get("bmi2")) and llvm.get_host_cpu_name() not in (
        "znver1", "znver2", "bdver4")


FAST_BMI2 = _fast_bmi2()


def _bmi2_intrinsic(name):
    """A numba intrinsic for BMI2's ``name`` (pdep or pext) on two uint64s."""
    @intrinsic
    def call(typingctx, a, b):
        sig = types.uint64(types.uint64, types.uint64)

        def codegen(context, builder, signature, args):
            i64 = ir.IntType(64)
            fn = builder.module.declare_intrinsic(f"llvm.x86.bmi.{name}.64", fnty=ir.FunctionType(i64, [i64, i64]))
            return builder.call(fn, args)

        return sig, codegen

    return call


if config.DISABLE_JIT:
    def prefetch_nb(arr, index):
        """A cache hint: nothing to do in Python."""
else:
    @intrinsic
    def prefetch_nb(typingctx, arr, index):
        """Ask the processor to bring ``arr[index]`` into its caches without waiting for it
        (llvm.prefetch: a hint, for reading, kept in every cache level)."""
        sig = types.void(arr, index)

        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
            i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
            fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p],
                                                  fnty=ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]))
            builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
            return context.get_dummy_value()

        return sig, codegen


if FAST_BMI2:
    _pdep_u64 = _bmi2_intrinsic("pdep")
    _pext_u64 = _bmi2_intrinsic("pext")

    @njit(cache=True, inline="always")
    def nth_card_nb(x, n):
        """The ``n``-th lowest card (0-based) of the set ``x``: the ``n``-th one bit of ``x``
        deposited by pdep (``nth_card_table_nb`` on other machines, the same card)."""
        return lowest_nb(_pdep_u64(ONE << np.uint64(n), np.uint64(x)))

    @njit(cache=True, inline="always")
    def compress_nb(x, mask):
        """``compress_table_nb`` as one pext instruction."""
        return _pext_u64(np.uint64(x), np.uint64(mask))
else:
    nth_card_nb = nth_card_table_nb
    compress_nb = compress_table_nb


def card_name(card: int) -> str:
    """C-2 notation of a card id."""
    if card >= 52:
        return COLON_NAMES[card - 52]
    return RANK_CHARS[card % 13] + SUIT_CHARS[card // 13]


CARD_IDS = {card_name(c): c for c in range(N_CARDS)}


def mask_to_cards(mask: int) -> list[int]:
    """The cards of a mask, lowest first (its set bits, one step each: the referees and
    traces call it for every hand and legal set)."""
    m, cards = int(mask), []
    while m:
        low = m & -m
        cards.append(low.bit_length() - 1)
        m ^= low
    return cards


RANK_MASKS = np.array([sum(1 << (s * 13 + r) for s in range(4)) for r in range(13)], dtype=np.uint64)
HCP = np.array([0] * 9 + [1, 2, 3, 4], dtype=np.int64)  # J Q K A = 1 2 3 4


@njit(cache=True, inline="always")
def above_in_suit_nb(card):
    """The cards of ``card``'s suit that rank above it."""
    return SUIT_MASKS[card // 13] & ~((bit_nb(card) << ONE) - ONE)


@njit(cache=True)
def hcp_nb(hand):
    """High-card points of the suited cards: A 4, K 3, Q 2, J 1."""
    total = 0
    for r in range(RANK_JACK, RANK_ACE + 1):
        total += HCP[r] * popcount_nb(hand & RANK_MASKS[r])
    return total


# --- Bid Euchre layout (E-1, E-2, E-10) ------------------------------------------------------
# Bit ``copy * 24 + suit * 6 + rank`` with ranks 9 T J Q K A = 0..5 (copy 1 only with the
# double deck), the joker at bit 48. Trump decides each card's effective suit and power.

EUCHRE_RANKS = "9TJQKA"
EUCHRE_JACK, EUCHRE_KING = 2, 4

# E-2 powers: a plain card's power is its rank (9 = 0 .. A = 5); trumps rank above every
# plain card, from the 9 (TRUMP_POWER) up to the ace, then the two bowers and the joker.
TRUMP_POWER = 100
POWER_TRUMP_KING, POWER_TRUMP_ACE = TRUMP_POWER + 3, TRUMP_POWER + 4
POWER_LEFT_BOWER, POWER_RIGHT_BOWER, POWER_JOKER = TRUMP_POWER + 5, TRUMP_POWER + 6, TRUMP_POWER + 7
EUCHRE_JOKER = 48
EUCHRE_BITS = 49


def euchre_card_name(card: int) -> str:
    if card == EUCHRE_JOKER:
        return "JO"
    return EUCHRE_RANKS[card % 6] + SUIT_CHARS[(card % 24) // 6]


EUCHRE_CARD_IDS = {euchre_card_name(c): c for c in range(24)} | {"JO": EUCHRE_JOKER}


def _euchre_tables():
    """EFF_SUIT[trump, card], POWER[trump, card] and SUIT_OF[trump, suit] masks (E-2)."""
    eff = np.zeros((4, EUCHRE_BITS), dtype=np.int64)
    power = np.zeros((4, EUCHRE_BITS), dtype=np.int64)
    suit_of = np.zeros((4, 4), dtype=np.uint64)
    for trump in range(4):
        left = 3 - trump  # the other suit of the same colour: clubs-spades, diamonds-hearts
        for card in range(EUCHRE_BITS):
            suit, rank = (card % 24) // 6, card % 6
            if card == EUCHRE_JOKER:
                eff[trump, card], power[trump, card] = trump, POWER_JOKER
            elif rank == EUCHRE_JACK and suit == trump:
                eff[trump, card], power[trump, card] = trump, POWER_RIGHT_BOWER
            elif rank == EUCHRE_JACK and suit == left:
                eff[trump, card], power[trump, card] = trump, POWER_LEFT_BOWER
            elif suit == trump:
                eff[trump, card], power[trump, card] = trump, TRUMP_POWER + (rank if rank < EUCHRE_JACK else rank - 1)
            else:
                eff[trump, card], power[trump, card] = suit, rank
            suit_of[trump, eff[trump, card]] |= np.uint64(1 << card)
    return eff, power, suit_of


EUCHRE_EFF_SUIT, EUCHRE_POWER, EUCHRE_SUIT_OF = _euchre_tables()
_EUCHRE_RANK = [sum(1 << (c * 24 + s * 6 + r) for c in (0, 1) for s in range(4)) for r in range(6)]
EUCHRE_ACES = np.uint64(_EUCHRE_RANK[5])
EUCHRE_FACES = np.uint64(_EUCHRE_RANK[2] | _EUCHRE_RANK[3] | _EUCHRE_RANK[4])
