// small_alloc.cpp: the C++ allocation functions (operator new and delete) of the WebAssembly builds. Blocks of up to
// 512 bytes come from free lists, one per 16-byte size class, refilled from 64 KiB slabs; larger and over-aligned
// blocks go to the C heap (Emscripten's dlmalloc) as before.
// Why: a plan makes and frees many small strings, vectors and map nodes. In the module each dlmalloc call is ordinary
// WebAssembly (no per-thread cache as in glibc's tcache), so allocation took a larger share of a small plan there than
// natively (BENCHMARKS.md "The module's allocator"). A free-list pop or push is a few instructions.
// Single-threaded by design: the modules are built without threads (no -pthread), so no locking.
// Slabs are never returned to the C heap: their memory is reused by later blocks of the same class. The page's peak is
// what one plan holds at once, a few MB; ALLOW_MEMORY_GROWTH covers it as before.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#error "small_alloc.cpp is the single-threaded WebAssembly builds' allocator"
#endif

namespace {

constexpr std::size_t kGranuleBytes = 16;                 // the size-class step, and the blocks' alignment
constexpr std::size_t kClasses = 32;                      // classes of 16, 32, ..., 512 bytes
constexpr std::size_t kLargestSmallBytes = kGranuleBytes * kClasses;
constexpr std::size_t kSlabShift = 16;                    // 64 KiB slabs, aligned to their size
constexpr std::size_t kSlabBytes = std::size_t{1} << kSlabShift;
constexpr std::size_t kRegions = static_cast<std::size_t>((std::uint64_t{1} << 32) >> kSlabShift); // every 64 KiB region of 4 GiB

struct FreeBlock {
    FreeBlock* next;
};

// Per region of the address space: 0 when the region is not one of our slabs, else its size class + 1. A slab is a
// whole aligned region the C heap gave us, so no C-heap block can share its region.
unsigned char g_class_of_region[kRegions];
FreeBlock* g_free[kClasses];
char* g_bump[kClasses]; // the unused rest of each class's newest slab
char* g_bump_end[kClasses];

// A block of size class c: from the free list, else from the slab, else from a new slab. nullptr when the C heap has
// no slab to give.
void* small_block(std::size_t c) {
    if (FreeBlock* b = g_free[c]) {
        g_free[c] = b->next;
        return b;
    }
    const std::size_t size = (c + 1) * kGranuleBytes;
    if (static_cast<std::size_t>(g_bump_end[c] - g_bump[c]) < size) {
        char* slab = static_cast<char*>(std::aligned_alloc(kSlabBytes, kSlabBytes));
        if (!slab) return nullptr;
        g_class_of_region[reinterpret_cast<std::uintptr_t>(slab) >> kSlabShift] = static_cast<unsigned char>(c + 1);
        g_bump[c] = slab;
        g_bump_end[c] = slab + kSlabBytes;
    }
    void* b = g_bump[c];
    g_bump[c] += size;
    return b;
}

void* allocate(std::size_t n) noexcept {
    if (n == 0) n = 1;
    if (n <= kLargestSmallBytes) return small_block((n - 1) / kGranuleBytes);
    return std::malloc(n);
}

void release(void* p) noexcept {
    if (!p) return;
    const unsigned k = g_class_of_region[reinterpret_cast<std::uintptr_t>(p) >> kSlabShift];
    if (k == 0) {
        std::free(p);
        return;
    }
    FreeBlock* b = static_cast<FreeBlock*>(p);
    b->next = g_free[k - 1];
    g_free[k - 1] = b;
}

void* allocate_or_throw(std::size_t n) {
    void* p = allocate(n);
    if (!p) throw std::bad_alloc();
    return p;
}

// Blocks aligned above the default (8 bytes here): small ones of alignment up to 16 from the free lists (every block is
// 16-byte aligned), the rest from the C heap's aligned_alloc; release() frees those there (their region is not a slab).
void* allocate_aligned(std::size_t n, std::align_val_t a) noexcept {
    const std::size_t align = static_cast<std::size_t>(a);
    if (align <= kGranuleBytes && n <= kLargestSmallBytes) return allocate(n);
    const std::size_t rounded = (n + align - 1) / align * align;
    return std::aligned_alloc(align, rounded == 0 ? align : rounded);
}

void* allocate_aligned_or_throw(std::size_t n, std::align_val_t a) {
    void* p = allocate_aligned(n, a);
    if (!p) throw std::bad_alloc();
    return p;
}

} // namespace

// Every replaceable form, so that none of the C++ runtime's own definitions is linked beside these.
void* operator new(std::size_t n) { return allocate_or_throw(n); }
void* operator new[](std::size_t n) { return allocate_or_throw(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate_aligned_or_throw(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate_aligned_or_throw(n, a); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return allocate_aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return allocate_aligned(n, a); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
