"""Small dense linear algebra on lists: a ladder has 2 to ~20 bots, so its matrices are tiny and pure Python
beats importing an array library. ``matrix`` arguments are symmetric positive definite where a Cholesky
factor is taken (a Hessian with a prior, a covariance plus noise)."""

from __future__ import annotations

import math


def cholesky(matrix: list[list[float]]) -> list[list[float]]:
    """The lower triangle L with L Lᵀ = matrix."""
    k = len(matrix)
    lower = [[0.0] * k for _ in range(k)]
    for i in range(k):
        for j in range(i + 1):
            total = matrix[i][j] - sum(lower[i][m] * lower[j][m] for m in range(j))
            lower[i][j] = math.sqrt(total) if i == j else total / lower[j][j]
    return lower


def solve(lower: list[list[float]], vector: list[float]) -> list[float]:
    """x with L Lᵀ x = vector, L = ``lower`` (a Cholesky factor)."""
    k = len(vector)
    y = [0.0] * k
    for i in range(k):
        y[i] = (vector[i] - sum(lower[i][m] * y[m] for m in range(i))) / lower[i][i]
    x = [0.0] * k
    for i in reversed(range(k)):
        x[i] = (y[i] - sum(lower[m][i] * x[m] for m in range(i + 1, k))) / lower[i][i]
    return x


def inverse(matrix: list[list[float]]) -> list[list[float]]:
    lower = cholesky(matrix)
    k = len(matrix)
    columns = [solve(lower, [1.0 if i == j else 0.0 for i in range(k)]) for j in range(k)]
    return [[columns[j][i] for j in range(k)] for i in range(k)]


def product(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    columns = list(zip(*b, strict=True))
    return [[sum(x * y for x, y in zip(row, column, strict=True)) for column in columns] for row in a]
