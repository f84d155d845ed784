/* A red-black tree with parent links: every path from the root down to a
 * missing child passes as many black nodes, no red node has a red child,
 * so no path is more than twice as long as another. */
#include "util/rangetree.h"

static bool is_red(const range_node *n)
{
    return n != NULL && n->red;
}

/* Puts n where old was below old's parent (or at the root). */
static void replace_child(range_tree *t, range_node *old, range_node *n)
{
    range_node *p = old->parent;
    if (p == NULL)
        t->root = n;
    else
        p->child[p->child[1] == old] = n;
    if (n != NULL)
        n->parent = p;
}

/* Lifts x's child on side !dir into x's place, x becoming its child on
 * side dir (dir 0: a left rotation). */
static void rotate(range_tree *t, range_node *x, int dir)
{
    range_node *y = x->child[!dir];
    x->child[!dir] = y->child[dir];
    if (y->child[dir] != NULL)
        y->child[dir]->parent = x;
    replace_child(t, x, y);
    y->child[dir] = x;
    x->parent = y;
}

range_node *range_tree_insert(range_tree *t, range_node *n)
{
    uintptr_t last = n->base + (n->size - 1);
    range_node *p = NULL, **link = &t->root;
    while (*link != NULL) {
        p = *link;
        if (last < p->base)
            link = &p->child[0];
        else if (p->base + (p->size - 1) < n->base)
            link = &p->child[1];
        else
            return p;
    }
    n->child[0] = n->child[1] = NULL;
    n->parent = p;
    n->red = true;
    *link = n;
    /* n is red: only a red parent breaks a rule. */
    while ((p = n->parent) != NULL && p->red) {
        range_node *g = p->parent; /* there is one: the root is black */
        int side = g->child[1] == p;
        range_node *uncle = g->child[!side];
        if (is_red(uncle)) {
            p->red = uncle->red = false;
            g->red = true;
            n = g;
            continue;
        }
        if (n == p->child[!side]) {
            rotate(t, p, side);
            n = p;
            p = n->parent;
        }
        p->red = false;
        g->red = true;
        rotate(t, g, !side);
    }
    t->root->red = false;
    return NULL;
}

/* After a black node left the path through x (maybe NULL), below
 * parent: that path is one black short. */
static void remove_fixup(range_tree *t, range_node *x, range_node *parent)
{
    while (x != t->root && !is_red(x)) {
        int side = parent->child[1] == x;
        /* The other side is a black taller: it has a node. */
        range_node *w = parent->child[!side];
        if (w->red) {
            w->red = false;
            parent->red = true;
            rotate(t, parent, side);
            w = parent->child[!side];
        }
        if (!is_red(w->child[0]) && !is_red(w->child[1])) {
            w->red = true;
            x = parent;
            parent = x->parent;
            continue;
        }
        if (!is_red(w->child[!side])) {
            w->child[side]->red = false;
            w->red = true;
            rotate(t, w, !side);
            w = parent->child[!side];
        }
        w->red = parent->red;
        parent->red = false;
        w->child[!side]->red = false;
        rotate(t, parent, side);
        x = t->root;
    }
    if (x != NULL)
        x->red = false;
}

void range_tree_remove(range_tree *t, range_node *z)
{
    /* y leaves its place: z itself when it lacks a child, else z's
     * successor, which then takes z's place. x takes y's. */
    range_node *y = z;
    if (z->child[0] != NULL && z->child[1] != NULL) {
        y = z->child[1];
        while (y->child[0] != NULL)
            y = y->child[0];
    }
    range_node *x = y->child[y->child[0] == NULL];
    range_node *parent = y->parent;
    bool removed_red = y->red;
    replace_child(t, y, x);
    if (y != z) {
        if (parent == z)
            parent = y;
        y->child[0] = z->child[0];
        y->child[1] = z->child[1];
        y->red = z->red;
        if (y->child[0] != NULL)
            y->child[0]->parent = y;
        if (y->child[1] != NULL)
            y->child[1]->parent = y;
        replace_child(t, z, y);
    }
    if (!removed_red)
        remove_fixup(t, x, parent);
}
